// Failures the CLI itself detects (no key configured, a bad flag value, an unreadable
// config file). They print like server problems: `error: <type> — <detail>`.
import type { ExitCode } from './exit-codes';

export class CliError extends Error {
  override readonly name = 'CliError';
  readonly type: string;
  readonly exitCode: ExitCode;

  constructor(type: string, detail: string, exitCode: ExitCode) {
    super(detail);
    this.type = type;
    this.exitCode = exitCode;
  }
}
