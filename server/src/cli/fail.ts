// How an operator command ends in failure: one `error:` line on stderr and the exit code the
// docs promise for that failure (2 configuration or a bad argument, 3 a running server in the
// way, 1 the rest).

export function fail(message: string, code: number): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(code);
}
