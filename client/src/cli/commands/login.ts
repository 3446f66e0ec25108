// `presence login --key K [--url U]` checks the key against GET /v1/presence/me before
// saving it, so a typo fails now and not on the next command. `presence logout` forgets it.
import type { Command } from 'commander';
import { DEFAULT_BASE_URL } from '../../client';
import { removeConfig, writeConfig } from '../config-file';
import type { CliContext } from '../context';
import { renderPairs } from '../table';

export function registerLogin(program: Command, cli: CliContext) {
  program
    .command('login')
    .description('check a key against the server and save it (mode 0600)')
    .requiredOption('--key <key>', 'an API key, prs_live_… or prs_test_…')
    .option('--url <url>', `server address (default: PRESENCE_URL, the saved one, or ${DEFAULT_BASE_URL})`)
    .action(async (opts: { key: string; url?: string }, cmd: Command) => {
      const s = cli.settings();
      const url = opts.url ?? s.url;
      const me = await cli.client({ url, token: opts.key }).presence.me();
      writeConfig(s.configFile, { url, token: opts.key });
      if (s.tokenSource === 'env') cli.io.stderr('note: PRESENCE_TOKEN is set and still wins over the saved key\n');
      cli.print(cmd, { url, name: me.name, mode: me.mode, config: s.configFile }, () =>
        renderPairs([
          ['logged in', `${url} — presence "${me.name}" (${me.mode} key)`],
          ['saved to', s.configFile],
        ]),
      );
    });

  program
    .command('logout')
    .description('forget the saved key')
    .action((_opts: unknown, cmd: Command) => {
      const s = cli.settings();
      const removed = removeConfig(s.configFile);
      if (s.tokenSource === 'env') cli.io.stderr('note: PRESENCE_TOKEN is still set in this environment\n');
      cli.print(cmd, { logged_out: removed, config: s.configFile }, () =>
        removed ? `logged out (removed ${s.configFile})` : 'not logged in: nothing saved',
      );
    });
}
