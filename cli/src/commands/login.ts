// `presence login --with-token [--url U]` reads a key from standard input (as `gh auth login
// --with-token` does), so it never sits in shell history; `--key K` still works. The key is
// checked against GET /v1/presence/me before it is saved, so a typo fails now and not on the
// next command. `presence logout` forgets it.
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { DEFAULT_BASE_URL } from '@presence/client';
import { type Command, Option } from 'commander';
import { CliError } from '../cli-error';
import { configPath, removeConfig, writeConfig } from '../config-file';
import type { CliContext } from '../context';
import { exitCodes } from '../exit-codes';

/** Far more than any key: what is piped in is a key, not a file read by mistake. */
export const MAX_KEY_INPUT = 4096;

export function registerLogin(program: Command, cli: CliContext) {
  program
    .command('login')
    .description('check a key against the server and save it (mode 0600)')
    .addOption(new Option('--with-token', 'read the key from standard input (kept out of shell history)').conflicts('key'))
    .option('--key <key>', 'the key itself, prs_live_… or prs_test_… (it stays in shell history)')
    .option('--url <url>', `server address (default: PRESENCE_URL, the saved one, or ${DEFAULT_BASE_URL})`)
    .action(async (opts: { withToken?: boolean; key?: string; url?: string }, cmd: Command) => {
      if (!opts.withToken && opts.key === undefined) {
        throw new CliError(
          'usage',
          `give the key on standard input: ${cli.command('login --with-token')} < key.txt (or --key <key>)`,
          exitCodes.usage,
        );
      }
      const key = opts.withToken ? await readKey(cli) : (opts.key as string);
      // An unreadable saved file is replaced, not an obstacle: login is how it gets fixed.
      const { configFile, saved } = cli.savedIfReadable();
      const url = opts.url ?? (cli.io.env.PRESENCE_URL || saved.url || DEFAULT_BASE_URL);
      const me = await cli.client({ url, token: key }).presence.me();
      writeConfig(configFile, { url, token: key });
      if (cli.io.env.PRESENCE_TOKEN) cli.io.stderr('note: PRESENCE_TOKEN is set and still wins over the saved key\n');
      cli.print(cmd, { url, name: me.name, mode: me.mode, config: configFile }, () =>
        cli.pairs([
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

/** The key from standard input: all of it when piped, one line typed unseen at a terminal. */
async function readKey(cli: CliContext): Promise<string> {
  const input = cli.io.stdin ?? process.stdin;
  const text = (input as { isTTY?: boolean }).isTTY ? await promptHidden(cli, input) : await readAll(input);
  const key = text.trim();
  if (key === '') throw new CliError('usage', 'standard input held no key', exitCodes.usage);
  if (/\s/.test(key)) throw new CliError('usage', 'standard input held more than one word; give just the key', exitCodes.usage);
  return key;
}

async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (text.length > MAX_KEY_INPUT)
      throw new CliError('usage', `standard input is over ${MAX_KEY_INPUT} characters: not a key`, exitCodes.usage);
  }
  return text;
}

/** Like a password prompt: the prompt on stderr, the typing not echoed, Enter ends it, Ctrl-C cancels. */
function promptHidden(cli: CliContext, input: NodeJS.ReadableStream): Promise<string> {
  const silent = new Writable({ write: (_chunk, _enc, done) => done() });
  const rl = createInterface({ input, output: silent, terminal: true });
  // Only now: the terminal stops echoing when the interface starts, so a key typed on seeing the prompt never shows.
  cli.io.stderr('Paste the key (it will not show), then press Enter: ');
  return new Promise((resolve, reject) => {
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
    rl.once('SIGINT', () => rl.close());
    rl.once('close', () => {
      cli.io.stderr('\n');
      if (!answered) reject(new CliError('cancelled', 'no key was entered', exitCodes.other));
    });
  });
}
