// Runs the real `presence` bin as a child process with a clean environment: its own HOME
// and XDG_CONFIG_HOME, no PRESENCE_* from the outer shell, and no trace of the npm that
// started vitest (npm_* variables, node_modules/.bin on PATH), as in a user's own shell.
// Also runs command lines the CLI printed, through sh, exactly as printed.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../bin/presence.js');
/** The monorepo root, where the README runs `npx presence`. */
export const repoRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export type CliResult = { code: number | null; stdout: string; stderr: string };

export function cleanEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('PRESENCE_') || k.startsWith('npm_') || k === 'XDG_CONFIG_HOME') delete env[k];
  env.PATH = (env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => !/node_modules[/\\]\.bin$|node-gyp-bin$/.test(dir))
    .join(path.delimiter);
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export function spawnPresence(args: string[], env: Record<string, string | undefined>, input?: string) {
  return spawnCollected(process.execPath, [bin, ...args], env, input);
}

function spawnCollected(file: string, args: string[], env: Record<string, string | undefined>, input?: string, cwd?: string) {
  const proc = spawn(file, args, {
    env: cleanEnv(env),
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    cwd,
  });
  if (input !== undefined) proc.stdin?.end(input);
  let stdout = '';
  let stderr = '';
  proc.stdout?.on('data', (d) => {
    stdout += d;
  });
  proc.stderr?.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<CliResult>((resolve) => proc.on('close', (code) => resolve({ code, stdout, stderr })));
  return {
    proc,
    exited,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
  };
}

export function runPresence(
  args: string[],
  env: Record<string, string | undefined>,
  input?: string,
  // A bound on a hang, not a timing claim: under CI's full load a tsx start alone can take seconds.
  timeoutMs = 45_000,
): Promise<CliResult> {
  return settle(spawnPresence(args, env, input), timeoutMs);
}

/** A command line run by sh in `cwd`, as a user would paste it (e.g. a hint the CLI printed). */
export function runShell(line: string, env: Record<string, string | undefined>, cwd: string, input?: string, timeoutMs = 60_000) {
  return settle(spawnCollected('sh', ['-c', line], env, input, cwd), timeoutMs);
}

function settle(child: ReturnType<typeof spawnCollected>, timeoutMs: number): Promise<CliResult> {
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), timeoutMs);
  return child.exited.finally(() => clearTimeout(timer));
}
