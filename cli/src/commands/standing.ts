// `presence standing list|cancel ID`: standing intents (made by talking: "tell me when …").
import type { Command } from 'commander';
import type { CliContext } from '../context';
import { shortTime } from '../table';

export function registerStanding(program: Command, cli: CliContext) {
  const standing = program.command('standing').description('list and cancel standing intents');

  standing
    .command('list')
    .description('active standing intents')
    .action(async (_opts: unknown, cmd: Command) => {
      const r = await cli.client().standing.list();
      cli.print(cmd, r, () =>
        r.standing.length === 0
          ? `no standing intents; make one by talking, e.g. ${cli.command('chat "tell me when WETH is below 2500 USD"')}`
          : cli.table(
              [{ header: 'ID' }, { header: 'FIRED', align: 'right' }, { header: 'LAST FIRED' }, { header: 'CREATED' }, { header: 'TEXT' }],
              r.standing.map((s) => [s.id, String(s.fired_count), shortTime(s.last_fired_at), shortTime(s.created_at), s.text]),
            ),
      );
    });

  standing
    .command('cancel')
    .description('cancel one')
    .argument('<id>', 'standing id, st_…')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const r = await cli.client().standing.cancel(id);
      cli.print(cmd, r, () => `cancelled ${r.id}: "${r.text}"`);
      cli.noteIfTest();
    });
}
