// `presence login --key K [--url U]` checks the key against GET /v1/presence/me before
// saving it, so a typo fails now and not on the next command. `presence logout` forgets it.
import type { Command } from 'commander';
import { DEFAULT_BASE_URL } from '../../client';
import { configPath, removeConfig, writeConfig } from '../config-file';
import type { CliContext } from '../context';
import { renderPairs } from '../table';

export function registerLogin(program: Command, cli: CliContext) {
  program
    .command('login')
    .description('check a key against the server and save it (mode 0600)')
    .requiredOption('--key <key>', 'an API key, prs_live_… or prs_test_…')
    .option('--url <url>', `server address (default: PRESENCE_URL, the saved one, or ${DEFAULT_BASE_URL})`)
    .action(async (opts: { key: string; url?: string }, cmd: Command) => {
      // An unreadable saved file is replaced, not an obstacle: login is how it gets fixed.
      const { configFile, saved } = cli.savedIfReadable();
      const url = opts.url ?? (cli.io.env.PRESENCE_URL || saved.url || DEFAULT_BASE_URL);
      const me = await cli.client({ url, token: opts.key }).presence.me();
      writeConfig(configFile, { url, token: opts.key });
      if (cli.io.env.PRESENCE_TOKEN) cli.io.stderr('note: PRESENCE_TOKEN is set and still wins over the saved key\n');
      cli.print(cmd, { url, name: me.name, mode: me.mode, config: configFile }, () =>
        renderPairs([
          ['logged in', `${url} — presence "${me.name}" (${me.mode} key)`],
          ['saved to', configFile],
        ]),
      );
    });

  program
    .command('logout')
    .description('forget the saved key')
    .action((_opts: unknown, cmd: Command) => {
      // Never reads the file: a corrupt one is removed like any other.
      const configFile = configPath(cli.io.env);
      const removed = removeConfig(configFile);
      if (cli.io.env.PRESENCE_TOKEN) cli.io.stderr('note: PRESENCE_TOKEN is still set in this environment\n');
      cli.print(cmd, { logged_out: removed, config: configFile }, () =>
        removed ? `logged out (removed ${configFile})` : 'not logged in: nothing saved',
      );
    });
}
