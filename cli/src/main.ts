// Entry point of the `presence` bin (see bin/presence.js). Before anything else loads, the
// process-wide failure paths are set up so nothing reaches Node's default printer (a stack
// trace): a closed stdout (`presence … | head`) ends the run quietly, and an uncaught error
// or rejection is printed like every other failure, one line (the stack with PRESENCE_DEBUG=1).
// `presence --version` answers before commander, the SDK and zod are loaded: scripts and
// shell prompts call it, and it should cost a Node start and nothing more. So everything else
// is imported dynamically (the build puts it in chunks main.js does not import).
import { CLI_VERSION } from './version';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) process.stdout.write(`${CLI_VERSION}\n`);
else await run();

async function run() {
  const [{ invocation }, { installProcessGuards }] = await Promise.all([import('./invocation'), import('./process-guards')]);
  const io = {
    env: process.env,
    self: invocation({ script: process.argv[1], env: process.env, cwd: process.cwd() }),
    isTTY: process.stdout.isTTY === true,
    stdout: (s: string) => void process.stdout.write(s),
    stderr: (s: string) => void process.stderr.write(s),
  };
  installProcessGuards(process, io);
  // Imported only now, so a failure while loading the commands is caught by the guards too.
  const { runCli } = await import('./run');
  process.exitCode = await runCli(argv, io);
}
