// The real nginx with deploy/nginx.conf, the very file an operator installs, in front of
// servers a test started: the file's ports (8801…, 8080) and its log directory are moved to
// the test's, each exactly where the file has them, and nginx runs unprivileged the way
// FIELD-NOTES says (`-p DIR -g 'pid …; error_log …;'`). Debian's nginx; `npm test`'s pretest
// (scripts/ensure-nginx.ts) installs it when it is missing.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findNginx, NGINX_HINT } from '../../scripts/nginx';
import { removeDir, tempDir } from './harness';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const NGINX_CONF = path.join(ROOT, 'deploy/nginx.conf');

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

/** Replaces what `re` matches, failing when it matches other than `times` times: the file changed shape. */
function replaceExactly(text: string, re: RegExp, by: (m: string) => string, times: number): string {
  const found = text.match(new RegExp(re.source, 'g'))?.length ?? 0;
  if (found !== times) throw new Error(`deploy/nginx.conf: expected ${times} of ${re}, found ${found}`);
  return text.replace(new RegExp(re.source, 'g'), by);
}

/**
 * deploy/nginx.conf for this test: upstream `127.0.0.1:880N` becomes `upstreams[N-1]`, the
 * loopback `listen` port `listenPort`, `/var/log/nginx/` the test's directory.
 */
export function nginxConfFor(conf: string, upstreams: string[], listenPort: number, logDir: string): string {
  let text = replaceExactly(conf, /server 127\.0\.0\.1:880(\d)/, (m) => `server ${upstreams[Number(m.slice(-1)) - 1]}`, upstreams.length);
  text = replaceExactly(text, /listen 127\.0\.0\.1:8080;/, () => `listen 127.0.0.1:${listenPort};`, 1);
  return replaceExactly(text, /access_log \/var\/log\/nginx\//, () => `access_log ${logDir}/`, 1);
}

/**
 * Has nginx ignore the servers' `X-Accel-Buffering: no`, so how a stream is passed on rests on
 * the configuration alone (its `proxy_buffering off`), not on a header the servers send.
 */
export function ignoringServerBufferingHint(conf: string): string {
  return replaceExactly(conf, /proxy_pass http:\/\/presence;/, (m) => `${m}\n      proxy_ignore_headers X-Accel-Buffering;`, 1);
}

/** The body of the configuration's `location / { … }`, where every request but /metrics goes. */
export function mainLocation(conf: string): string {
  const body = /^\s*location \/ \{\n([^}]*)\}/m.exec(conf)?.[1];
  if (body === undefined) throw new Error('deploy/nginx.conf: no `location / { … }`');
  return body;
}

export type Nginx = { url: string; dir: string; errorLog(): string; stop(): Promise<void> };

/** nginx with the configuration `confFor(its directory)` answers, until stop(); ready once it answers on `port`. */
export async function runNginx(confFor: (dir: string) => string, port: number): Promise<Nginx> {
  const bin = findNginx();
  if (!bin) throw new Error(`no nginx: ${NGINX_HINT} (npm test's pretest does it: npx tsx scripts/ensure-nginx.ts)`);
  const dir = tempDir('presence-nginx-');
  const conf = path.join(dir, 'nginx.conf');
  const globals = `pid ${dir}/nginx.pid; error_log ${dir}/error.log; daemon off;`;
  const args = ['-p', dir, '-c', conf, '-g', globals];
  try {
    mkdirSync(path.join(dir, 'logs'), { recursive: true });
    writeFileSync(conf, confFor(dir));
    const checked = spawnSync(bin, ['-t', ...args], { encoding: 'utf8' });
    if (checked.status !== 0) throw new Error(`nginx -t refused the configuration:\n${checked.stderr}`);
  } catch (e) {
    removeDir(dir);
    throw e;
  }
  const proc: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr?.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<void>((r) => proc.on('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  const errorLog = () => {
    try {
      return readFileSync(path.join(dir, 'error.log'), 'utf8');
    } catch {
      return '';
    }
  };
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGQUIT'); // graceful: workers finish
    const forced = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(forced);
    removeDir(dir);
  };
  const by = Date.now() + 15_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`nginx exited at start:\n${stderr}\n${errorLog()}`);
    try {
      await fetch(`${url}/v1/health`, { signal: AbortSignal.timeout(1000) });
      return { url, dir, errorLog, stop };
    } catch {
      if (Date.now() > by) {
        await stop();
        throw new Error(`nginx did not answer on ${url}:\n${stderr}\n${errorLog()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
