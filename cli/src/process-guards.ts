// What the CLI does about failures outside any command: the reader of stdout went away
// (EPIPE, e.g. `presence --help | head -c 10`), or an error nobody caught. Node's defaults
// print a stack trace; a CLI that promises one line per failure must not.
import { exitCodes } from './exit-codes';
import { reportError } from './report-error';

/** The parts of `process` used here, so tests can pass a stand-in. */
export type GuardedProcess = {
  stdout: NodeJS.EventEmitter;
  stderr: NodeJS.EventEmitter;
  on(event: 'uncaughtException' | 'unhandledRejection', listener: (err: unknown) => void): unknown;
  exit(code?: number): never;
  exitCode?: number | string | null | undefined;
};

const isEpipe = (e: unknown) => (e as NodeJS.ErrnoException | null)?.code === 'EPIPE';

export function installProcessGuards(proc: GuardedProcess, io: { env: NodeJS.ProcessEnv; stderr: (s: string) => void }) {
  const debug = io.env.PRESENCE_DEBUG === '1';
  let failing = false;
  // Nobody reads the output any more: stop, as `head` expects, with the code earned so far.
  const quit = () => proc.exit(typeof proc.exitCode === 'number' ? proc.exitCode : exitCodes.ok);
  proc.stdout.on('error', (e: unknown) => {
    if (isEpipe(e)) quit();
    else fail(e);
  });
  // stderr gone too: there is no one left to tell anything.
  proc.stderr.on('error', () => quit());
  function fail(err: unknown) {
    if (isEpipe(err)) return quit();
    if (!failing) {
      failing = true; // a failure while reporting one must not loop
      try {
        reportError(err, io.stderr, debug);
      } catch {}
    }
    proc.exit(exitCodes.other);
  }
  proc.on('uncaughtException', fail);
  proc.on('unhandledRejection', fail);
}
