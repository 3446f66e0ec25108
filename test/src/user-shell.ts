// Running commands as a user would from their own shell, for the tests and benchmarks that
// pack our packages and install them elsewhere: none of the variables of the npm (and vitest)
// that started us, so an installed bin resolves only what its install holds.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The environment of a user's shell: no npm_* variables, no INIT_CWD, no NODE_OPTIONS. */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('npm_') || k === 'INIT_CWD' || k === 'NODE_OPTIONS') delete env[k];
  return { ...env, ...extra };
}

/** Runs a command to completion; answers its stdout, or throws with both streams. */
export function run(file: string, args: string[], cwd: string, env = userEnv()): string {
  const r = spawnSync(file, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${file} ${args.join(' ')} (in ${cwd}) exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Apparent size in bytes of a file or a whole tree. */
export function sizeOf(p: string): number {
  const s = statSync(p, { throwIfNoEntry: false });
  if (!s) return 0;
  if (!s.isDirectory()) return s.size;
  return readdirSync(p).reduce((sum, e) => sum + sizeOf(path.join(p, e)), 0);
}

/**
 * `npm pack`s the workspace at `dir` (its prepack builds it) into `destination`; answers the
 * tarball's path. The prepack's build log shares stdout with npm's JSON (and carries ANSI
 * colours when CI sets FORCE_COLOR), so colour is turned off and the JSON is read from the
 * line where npm's array opens, not from the first '[' in the output.
 */
export function pack(dir: string, destination: string): string {
  const env = userEnv({ NO_COLOR: '1' });
  delete env.FORCE_COLOR;
  const out = run('npm', ['pack', '--json', '--pack-destination', destination], dir, env);
  const start = out.search(/^\[\s*$/m);
  if (start < 0) throw new Error(`npm pack printed no JSON array (in ${dir}):\n${out}`);
  const [info] = JSON.parse(out.slice(start)) as { filename: string }[];
  if (!info) throw new Error(`npm pack listed no tarball (in ${dir})`);
  return path.join(destination, info.filename);
}
