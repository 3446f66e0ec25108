// What test/src/deploy-recipe.test.ts puts in systemd's place while it follows
// docs/operations.md line by line in a temporary root: `systemctl` starts, stops and restarts
// the units the recipe installed, read as systemd reads them (WorkingDirectory,
// EnvironmentFile, Environment, StateDirectory, ExecStart, the %i and %H specifiers), and
// nginx with the installed configuration; `journalctl -u UNIT` prints a unit's output. Also
// `rewrite FILE…`: moves the deploy files' paths and ports to the test's (STAND_IN_MAP).
// Run as `node --import tsx systemd-stand-in.ts systemctl|journalctl|rewrite|stop-all ARGS`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

const root = process.env.STAND_IN_ROOT as string;
const run = path.join(root, 'run');
const logs = path.join(root, 'log');
const unitsDir = path.join(root, 'etc/systemd/system');
mkdirSync(run, { recursive: true });
mkdirSync(logs, { recursive: true });

/** [pattern source, flags, replacement] pairs, applied in order. */
function rewrite(text: string, map: [string, string, string][]): string {
  return map.reduce((t, [source, flags, by]) => t.replace(new RegExp(source, flags), by), text);
}

function fail(line: string): never {
  process.stderr.write(`systemd stand-in: ${line}\n`);
  process.exit(1);
}

type Unit = { cwd: string; env: Record<string, string>; exec: string[]; stateDirs: string[]; oneshot: boolean };

function readUnit(name: string): Unit {
  const at = name.indexOf('@');
  const instance = at >= 0 ? name.slice(at + 1) : '';
  const file = path.join(unitsDir, at >= 0 ? `${name.slice(0, at)}@.service` : `${name}.service`);
  if (!existsSync(file)) fail(`Unit ${name}.service not found.`);
  const text = readFileSync(file, 'utf8').replace(/%i/g, instance).replace(/%H/g, hostname());
  const service = text.slice(text.indexOf('[Service]'));
  const all = (key: string) => [...service.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => (m[1] as string).trim());
  const env: Record<string, string> = {};
  for (const f of all('EnvironmentFile')) {
    const optional = f.startsWith('-');
    const p = optional ? f.slice(1) : f;
    if (!existsSync(p)) {
      if (optional) continue;
      fail(`${name}: EnvironmentFile ${p} does not exist`);
    }
    for (const line of readFileSync(p, 'utf8').split('\n')) {
      const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
      if (m) env[m[1] as string] = (m[2] as string).trim();
    }
  }
  for (const line of all('Environment')) {
    for (const a of line.split(/\s+/)) {
      const i = a.indexOf('=');
      if (i > 0) env[a.slice(0, i)] = a.slice(i + 1);
    }
  }
  return {
    cwd: all('WorkingDirectory')[0] ?? '/',
    env,
    exec: (all('ExecStart')[0] ?? fail(`${name}: no ExecStart`)).split(/\s+/),
    stateDirs: all('StateDirectory').flatMap((s) => s.split(/\s+/)),
    oneshot: all('Type')[0] === 'oneshot',
  };
}

const pidFile = (unit: string) => path.join(run, `${unit}.pid`);
/** The unit's pid, or null. (`nginx -t` leaves an empty pid file; 0 would signal our own process group.) */
const pidOf = (unit: string): number | null => {
  const pid = existsSync(pidFile(unit)) ? Number(readFileSync(pidFile(unit), 'utf8').trim()) : Number.NaN;
  return Number.isInteger(pid) && pid > 0 ? pid : null;
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function nginxArgs(): string[] {
  const prefix = path.join(root, 'nginx');
  mkdirSync(prefix, { recursive: true });
  mkdirSync(path.join(root, 'var/log/nginx'), { recursive: true });
  return ['-p', prefix, '-c', path.join(root, 'etc/nginx/nginx.conf'), '-g', `pid ${pidFile('nginx')}; error_log ${logs}/nginx.log;`];
}

function start(unit: string) {
  const running = pidOf(unit);
  if (running !== null && alive(running)) return;
  if (unit === 'nginx') {
    const r = spawnSync(process.env.STAND_IN_NGINX as string, nginxArgs(), { stdio: 'inherit' });
    if (r.status !== 0) fail('nginx did not start');
    return;
  }
  const u = readUnit(unit);
  for (const d of u.stateDirs) mkdirSync(path.join(root, 'var/lib', d), { recursive: true, mode: 0o700 });
  const out = openSync(path.join(logs, `${unit}.log`), 'a');
  const [cmd, ...args] = u.exec as [string, ...string[]];
  // systemd starts a service with nothing of the caller's environment but what the unit says.
  if (u.oneshot) {
    const r = spawnSync(cmd, args, { cwd: u.cwd, env: { PATH: process.env.PATH, ...u.env }, stdio: ['ignore', out, out] });
    if (r.status !== 0) fail(`${unit}.service failed (${r.error?.message ?? `exit ${r.status}`}); journalctl -u ${unit}`);
    return;
  }
  const child = spawn(cmd, args, { cwd: u.cwd, env: { PATH: process.env.PATH, ...u.env }, stdio: ['ignore', out, out], detached: true });
  writeFileSync(pidFile(unit), String(child.pid));
  child.unref();
}

async function stop(unit: string) {
  const pid = pidOf(unit);
  if (pid === null) {
    rmSync(pidFile(unit), { force: true });
    return;
  }
  if (unit === 'nginx') spawnSync(process.env.STAND_IN_NGINX as string, [...nginxArgs(), '-s', 'quit']);
  else if (alive(pid)) process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 300 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(pidFile(unit), { force: true });
}

const names = (args: string[]) => args.filter((a) => !a.startsWith('-') && a !== 'enable').map((a) => a.replace(/\.service$/, ''));
const [tool, verb, ...rest] = process.argv.slice(2);

if (tool === 'rewrite') {
  const map = JSON.parse(process.env.STAND_IN_MAP as string) as [string, string, string][];
  for (const f of [verb, ...rest] as string[]) writeFileSync(f, rewrite(readFileSync(f, 'utf8'), map));
} else if (tool === 'journalctl') {
  const unit = (process.argv.slice(2).find((_a, i, all) => all[i - 1] === '-u') ?? fail('journalctl: -u UNIT')).replace(/\.service$/, '');
  process.stdout.write(existsSync(path.join(logs, `${unit}.log`)) ? readFileSync(path.join(logs, `${unit}.log`), 'utf8') : '');
} else if (tool === 'systemctl') {
  if (verb === 'daemon-reload') process.exit(0);
  // Timers are enabled and nothing more here: the recipe starts their service by name.
  const units = names(rest).filter((u) => !u.endsWith('.timer'));
  if (verb === 'enable' && !rest.includes('--now')) process.exit(0);
  if (verb === 'enable') for (const u of units) start(u);
  else if (verb === 'start') for (const u of units) start(u);
  else if (verb === 'stop') for (const u of units) await stop(u);
  else if (verb === 'restart' || verb === 'reload') {
    for (const u of units) {
      await stop(u);
      start(u);
    }
  } else fail(`systemctl ${verb}: not something the recipe should need`);
} else if (tool === 'stop-all') {
  for (const f of readdirSync(run)) if (f.endsWith('.pid')) await stop(f.slice(0, -4));
} else fail(`unknown tool ${tool}`);
