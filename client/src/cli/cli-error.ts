// Failures the CLI itself detects (no key configured, a bad flag value, an unreadable
// config file). They print like server problems: `error: <type> — <detail>`.

export class CliError extends Error {
  override readonly name = 'CliError';
  readonly type: string;
  readonly exitCode: number;

  constructor(type: string, detail: string, exitCode: number) {
    super(detail);
    this.type = type;
    this.exitCode = exitCode;
  }
}
