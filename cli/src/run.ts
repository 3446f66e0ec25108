// Runs one CLI invocation and returns its exit code; never throws. Separate from main.ts
// so it can be driven with a fake environment.
import { CommanderError } from 'commander';
import { type CliIo, createContext } from './context';
import { exitCodeFor } from './exit-code-for';
import { createProgram } from './program';
import { reportError } from './report-error';

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const cli = createContext(io);
  const program = createProgram(cli);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return cli.exitCode();
  } catch (err) {
    // Commander has already printed its own message (usage errors, help, version).
    if (!(err instanceof CommanderError)) reportError(err, io.stderr, cli.debug);
    return exitCodeFor(err);
  }
}
