// Runs the real `presence` bin as a child process with a clean environment: its own HOME
// and XDG_CONFIG_HOME, and no PRESENCE_* from the outer shell.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../bin/presence.js');

export type CliResult = { code: number | null; stdout: string; stderr: string };

export function cleanEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('PRESENCE_') || k === 'XDG_CONFIG_HOME') delete env[k];
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export function spawnPresence(args: string[], env: Record<string, string | undefined>, input?: string) {
  const proc = spawn(process.execPath, [bin, ...args], {
    env: cleanEnv(env),
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
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
  timeoutMs = 20_000,
): Promise<CliResult> {
  const child = spawnPresence(args, env, input);
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), timeoutMs);
  return child.exited.finally(() => clearTimeout(timer));
}
