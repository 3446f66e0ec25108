// The real nginx with deploy/nginx/'s files, the very ones an operator installs, in front of
// servers a test started: the site's ports (8801…, 8080, 443, 80), its access log and its
// certificate paths are moved to the test's, each exactly where the file has them (a
// throwaway certificate for 127.0.0.1 stands in for the operator's), and nginx runs as the
// files' headers say a run outside Debian's service does (`-p DIR -g 'pid …; error_log …;'`).
// Two forms: deploy/nginx/nginx.conf including the site, or Debian's own nginx.conf with the
// site in sites-enabled/. Debian's nginx; `npm test`'s pretest (scripts/ensure-nginx.ts)
// installs it when it is missing.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findNginx, NGINX_HINT } from '../../scripts/nginx';
import { removeDir, tempDir } from './harness';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const NGINX_DIR = path.join(ROOT, 'deploy/nginx');
/** The site: everything Presence needs from nginx, in the http context. */
export const SITE_CONF = path.join(NGINX_DIR, 'presence.conf');
/** The whole nginx.conf for a host that runs nginx for Presence alone; it includes the site. */
export const COMPLETE_CONF = path.join(NGINX_DIR, 'nginx.conf');
/** Debian's own nginx.conf, as the `nginx` package installs it. */
export const DEBIAN_CONF = '/etc/nginx/nginx.conf';

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

/** The site's three listening ports, moved: loopback plain (8080), TLS (443), the redirect (80). */
export type Ports = { plain: number; tls: number; redirect: number };

export async function freePorts(): Promise<Ports> {
  return { plain: await freePort(), tls: await freePort(), redirect: await freePort() };
}

/** Replaces what `re` matches, failing when it matches other than `times` times: the file changed shape. */
function replaceExactly(text: string, re: RegExp, by: (m: string) => string, times: number): string {
  const found = text.match(new RegExp(re.source, 'gm'))?.length ?? 0;
  if (found !== times) throw new Error(`deploy/nginx: expected ${times} of ${re}, found ${found}`);
  return text.replace(new RegExp(re.source, 'gm'), by);
}

/**
 * deploy/nginx/presence.conf for this test: upstream `127.0.0.1:880N` becomes `upstreams[N-1]`,
 * the listening ports `ports` on 127.0.0.1 (IPv6 lines dropped), `/var/log/nginx/` and
 * `/etc/presence/tls/` the test's directory.
 */
export function siteFor(site: string, upstreams: string[], ports: Ports, dir: string): string {
  let text = replaceExactly(site, /server 127\.0\.0\.1:880(\d)/, (m) => `server ${upstreams[Number(m.slice(-1)) - 1]}`, upstreams.length);
  text = replaceExactly(text, /listen 127\.0\.0\.1:8080;/, () => `listen 127.0.0.1:${ports.plain};`, 1);
  text = replaceExactly(text, /listen 443 ssl http2;/, () => `listen 127.0.0.1:${ports.tls} ssl http2;`, 1);
  text = replaceExactly(text, /listen 80;/, () => `listen 127.0.0.1:${ports.redirect};`, 1);
  text = replaceExactly(text, /^\s*listen \[::\]:(80|443)[^;]*;\n/, () => '', 2);
  text = replaceExactly(text, /\/etc\/presence\/tls\//, () => `${dir}/tls/`, 2);
  return replaceExactly(text, /access_log \/var\/log\/nginx\//, () => `access_log ${dir}/`, 1);
}

/** deploy/nginx/nginx.conf for this test: Debian's temp paths in the test's directory. */
export function completeFor(conf: string, dir: string): string {
  return replaceExactly(conf, /_temp_path \/var\/lib\/nginx\//, (m) => m.replace('/var/lib/nginx/', `${dir}/`), 5);
}

/**
 * Debian's nginx.conf for this test, its other includes intact: its pid line goes (the test
 * gives one), `/etc/nginx/` and `/var/log/nginx/` become the test's directory, with Debian's
 * mime.types copied there and the sites given.
 */
export function debianFiles(dir: string, sites: Record<string, string>): Record<string, string> {
  const conf = readFileSync(DEBIAN_CONF, 'utf8');
  if (!/^\s*include \/etc\/nginx\/sites-enabled\/\*;/m.test(conf)) throw new Error(`${DEBIAN_CONF} does not include sites-enabled/*`);
  for (const d of ['modules-enabled', 'conf.d', 'sites-enabled', 'temp']) mkdirSync(path.join(dir, d), { recursive: true });
  copyFileSync('/etc/nginx/mime.types', path.join(dir, 'mime.types'));
  const text = conf
    .replace(/^\s*pid [^;]*;\n/m, '')
    .replace(/\/etc\/nginx\//g, `${dir}/`)
    .replace(/\/var\/log\/nginx\//g, `${dir}/`)
    .replace(/^http \{/m, `http {\n  client_body_temp_path ${dir}/temp/body;\n  proxy_temp_path ${dir}/temp/proxy;`);
  return { 'nginx.conf': text, ...Object.fromEntries(Object.entries(sites).map(([name, s]) => [`sites-enabled/${name}`, s])) };
}

/** A throwaway certificate for 127.0.0.1 and presence.example.com at DIR/tls/{fullchain,privkey}.pem; returns the certificate (the CA to trust). */
export function throwawayCertificate(dir: string): string {
  const tls = path.join(dir, 'tls');
  mkdirSync(tls, { recursive: true });
  const [cert, key] = [path.join(tls, 'fullchain.pem'), path.join(tls, 'privkey.pem')];
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=presence.example.com',
      '-addext',
      'subjectAltName=DNS:presence.example.com,IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`openssl could not make a certificate: ${made.stderr}`);
  return readFileSync(cert, 'utf8');
}

/**
 * Has nginx ignore the servers' `X-Accel-Buffering: no`, so how a stream is passed on rests on
 * the configuration alone (its `proxy_buffering off`), not on a header the servers send.
 */
export function ignoringServerBufferingHint(conf: string): string {
  return replaceExactly(conf, /proxy_pass http:\/\/presence;/, (m) => `${m}\n    proxy_ignore_headers X-Accel-Buffering;`, 1);
}

/** The body of the configuration's `location / { … }`, where every request but /metrics goes. */
export function mainLocation(conf: string): string {
  const body = /^\s*location \/ \{\n([^}]*)\}/m.exec(conf)?.[1];
  if (body === undefined) throw new Error('deploy/nginx/presence.conf: no `location / { … }`');
  return body;
}

export type Nginx = {
  /** The loopback plain listener (the site's 8080). */
  url: string;
  dir: string;
  errorLog(): string;
  /** The site's access log, one JSON object a line. */
  accessLog(): Record<string, unknown>[];
  stop(): Promise<void>;
};

/**
 * nginx with the files `filesFor(its directory)` gives (`nginx.conf` is the main one), until
 * stop(); ready once it answers `/metrics` on `port` (nginx answers that itself: no server
 * behind it needs to be up).
 */
export async function runNginx(filesFor: (dir: string) => Record<string, string>, port: number): Promise<Nginx> {
  const bin = findNginx();
  if (!bin) throw new Error(`no nginx: ${NGINX_HINT} (npm test's pretest does it: npx tsx scripts/ensure-nginx.ts)`);
  const dir = tempDir('presence-nginx-');
  // Debian's nginx.conf has workers run as www-data: they reach the temp directories in here.
  chmodSync(dir, 0o711);
  const conf = path.join(dir, 'nginx.conf');
  const globals = `pid ${dir}/nginx.pid; error_log ${dir}/error.log; daemon off;`;
  const args = ['-p', dir, '-c', conf, '-g', globals];
  try {
    mkdirSync(path.join(dir, 'logs'), { recursive: true });
    for (const [name, text] of Object.entries(filesFor(dir))) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), text);
    }
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
  const read = (name: string) => {
    try {
      return readFileSync(path.join(dir, name), 'utf8');
    } catch {
      return '';
    }
  };
  const errorLog = () => read('error.log');
  const accessLog = () =>
    read('presence.access.log')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
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
      await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(1000) });
      return { url, dir, errorLog, accessLog, stop };
    } catch {
      if (Date.now() > by) {
        await stop();
        throw new Error(`nginx did not answer on ${url}:\n${stderr}\n${errorLog()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export type PresenceNginx = Nginx & { ports: Ports; ca: string };

/**
 * deploy/nginx/nginx.conf with the site (`edit` may change the site first), in front of
 * `upstreams` (host:port each; three, as the site has), with a throwaway certificate.
 */
export async function runPresenceNginx(upstreams: string[], edit: (site: string) => string = (s) => s): Promise<PresenceNginx> {
  const ports = await freePorts();
  let ca = '';
  const nginx = await runNginx((dir) => {
    ca = throwawayCertificate(dir);
    return {
      'nginx.conf': completeFor(readFileSync(COMPLETE_CONF, 'utf8'), dir),
      'presence.conf': siteFor(edit(readFileSync(SITE_CONF, 'utf8')), upstreams, ports, dir),
    };
  }, ports.plain);
  return { ...nginx, ports, ca };
}
