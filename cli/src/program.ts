// The `presence` command tree. Only endpoints the server serves get a command: a stub for
// an endpoint that does not exist would be a command that can only fail.
import { Command } from 'commander';
import { registerChain } from './commands/chain';
import { registerChat } from './commands/chat';
import { registerCompletion } from './commands/completion';
import { registerConfirm } from './commands/confirm';
import { registerEvents } from './commands/events';
import { registerKeys } from './commands/keys';
import { registerLink } from './commands/link';
import { registerListen } from './commands/listen';
import { registerLogin } from './commands/login';
import { registerMe } from './commands/me';
import { registerMemory } from './commands/memory';
import { registerStanding } from './commands/standing';
import { registerWallet } from './commands/wallet';
import { registerWebhooks } from './commands/webhooks';
import type { CliContext } from './context';
import { exitCodeClasses } from './exit-codes';
import { commandIndex, exitCodesText, helpWidth, wrapChunks } from './help-layout';
import { CLI_VERSION } from './version';

export function createProgram(cli: CliContext): Command {
  const program = new Command('presence')
    .description('Talk to your Presence from the shell. Key: PRESENCE_TOKEN or `presence login`; server: PRESENCE_URL.')
    .version(CLI_VERSION)
    .option('--json', 'print JSON for programs instead of tables')
    .option('--headers', 'keep the header row of tables when stdout is not a terminal (TSV)')
    .hook('preAction', (_program, action) => cli.keepHeaders(Boolean(action.optsWithGlobals().headers)))
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    // Set before adding commands: subcommands inherit both, so every parse error comes back
    // to runCli as one CommanderError and is printed in the same one-line form.
    .exitOverride()
    .configureOutput({
      writeOut: (s) => cli.io.stdout(s),
      writeErr: (s) => cli.io.stderr(s),
      // Commander's sections and ours (help-layout.ts) wrap alike, within 80 columns.
      getOutHelpWidth: () => helpWidth(process.stdout),
      getErrHelpWidth: () => helpWidth(process.stderr),
      // One line like every other failure: Commander's "(Did you mean …?)" joins it, and the
      // pointer to --help ends it instead of a second line. A refused value reads as one
      // sentence ("argument 'abc' is invalid: expected a whole number"), not Commander's
      // "is invalid. a whole number".
      outputError: (s, write) =>
        write(`error: usage — ${oneLine(s.replace(/^error: /, '').replace(/ is invalid(.*?)\. /, ' is invalid$1: '))} (see --help)\n`),
    });

  // A group of subcommands is named and described here, in the tree; its file adds the subcommands.
  const group = (name: string, description: string) => program.command(name).description(description);
  registerLogin(program, cli);
  registerMe(program, cli);
  registerChat(program, cli);
  registerEvents(program, cli);
  registerConfirm(group('confirm', 'list held actions, or approve / deny one'), cli);
  registerMemory(group('memory', 'list, pin and forget remembered keywords'), cli);
  registerWallet(program, cli);
  registerChain(group('chain', 'read-only chain views: tokens, pools, positions, safety'), cli);
  registerStanding(group('standing', 'list and cancel standing intents'), cli);
  registerKeys(group('keys', 'list, create, rotate and revoke API keys (admin)'), cli);
  registerLink(program, cli);
  registerWebhooks(group('webhooks', 'endpoints that get the account’s events as signed requests (admin)'), cli);
  registerListen(program, cli);
  registerCompletion(program, cli);
  program.addHelpText('after', ({ error }) => {
    const width = helpWidth(error ? process.stderr : process.stdout);
    // Where `presence` is not on PATH (npx, or a path to the bin), say how to run it here.
    const runAs = cli.command('').trim();
    const here =
      runAs === 'presence'
        ? ''
        : `\n\n${wrapChunks(`From this shell, run it as: ${runAs} <command>`.split(' '), width, '', '  ').join('\n')}`;
    const index = commandIndex(program, width).join('\n');
    return `\nEvery command:\n${index}\n\n${ENVIRONMENT}\n\n${exitCodesText(exitCodeClasses, width)}${here}`;
  });
  return program;
}

const oneLine = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ');

const ENVIRONMENT = `Environment:
  PRESENCE_TOKEN   API key; wins over the saved login
  PRESENCE_URL     server address (default http://127.0.0.1:8787)
  PRESENCE_DEBUG   1 prints each request and error stacks on stderr`;
