// Entry point of the `presence` bin (see bin/presence.js).
import { runCli } from './run';

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
});
process.exitCode = code;
