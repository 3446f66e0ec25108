// Runs the real server entry point as a child process (as `npm start` does) and waits for
// its ready line.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { databaseEnvFor } from './test-database';

const require = createRequire(import.meta.url);
export const serverMain = path.join(path.dirname(require.resolve('@presence/server/package.json')), 'src/main.ts');
export const serverCli = path.join(path.dirname(require.resolve('@presence/server/package.json')), 'bin/presence-server.js');

export type Child = {
  proc: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
};

/** This process's environment with `overrides` applied; an undefined value removes the variable. */
export function childEnv(overrides: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env = { ...process.env, ...overrides };
  for (const [name, value] of Object.entries(overrides)) if (value === undefined) delete env[name];
  return env;
}

export async function spawnServer(
  env: Record<string, string | undefined>,
  {
    timeoutMs = 30_000,
    cwd,
    command = [process.execPath, '--import', 'tsx', serverMain],
    discardStdout = false,
  }: {
    timeoutMs?: number;
    cwd?: string;
    /** What to run (default: src/main.ts through tsx, as `npm start` does). */
    command?: [string, ...string[]];
    /** Read stdout past the ready line without keeping it (a benchmark's request log: megabytes a second). */
    discardStdout?: boolean;
  } = {},
): Promise<Child> {
  // Under PRESENCE_TEST_STORE=postgres, the data directory's own database (see test-database.ts).
  const database = env.PRESENCE_DATA_DIR ? await databaseEnvFor(env.PRESENCE_DATA_DIR) : {};
  const [file, ...args] = command;
  const proc = spawn(file, args, {
    env: childEnv({ PRESENCE_LOG_LEVEL: 'warn', ...database, ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
    cwd,
  });
  let out = '';
  let err = '';
  let ready = false;
  proc.stdout.on('data', (d) => {
    if (!(discardStdout && ready)) out += d;
  });
  proc.stderr.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((r) =>
    proc.on('exit', (code, signal) => {
      if (signal) err += `\n[exited on ${signal}]`;
      r(code);
    }),
  );
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`server did not start: ${err}`)), timeoutMs);
    const onData = () => {
      const m = /Presence listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        ready = true;
        clearTimeout(t);
        proc.stdout.off('data', onData);
        resolve({ proc, url: m[1] as string, stdout: () => out, stderr: () => err, exited });
      }
    };
    proc.stdout.on('data', onData);
    void exited.then((code) => {
      clearTimeout(t);
      reject(new Error(`server exited with ${code}: ${err}`));
    });
  });
}
