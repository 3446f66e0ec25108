// `presence me`: the presence this key resolves to.
import type { Command } from 'commander';
import type { CliContext } from '../context';

export function registerMe(program: Command, cli: CliContext) {
  program
    .command('me')
    .description('show the presence this key resolves to')
    .action(async (_opts: unknown, cmd: Command) => {
      const client = cli.client();
      const me = await client.presence.me();
      cli.print(cmd, me, () =>
        cli.pairs([
          ['name', me.name],
          ['mode', me.mode],
          ['model', me.route.model],
          ['memory', `${me.memory.pinned} pinned, ${me.memory.fading} fading`],
          ['chain', me.wallet.chain],
          ['spend', me.wallet.spend],
          ['server', client.baseUrl],
        ]),
      );
    });
}
