// deploy/nginx/ as a host runs it, for real: Debian's nginx with the whole-host nginx.conf and
// the site, over TLS with a throwaway certificate in the site's certificate paths; and the
// site alone inside Debian's own nginx.conf beside another site. What nginx answers itself is
// problem+json with the request id (no server up, a server too slow, a body or headers too
// large, /metrics); the request id is the client's fit one or nginx's own, passed to the
// server (which echoes it) and written to nginx's JSON access log, which keeps link codes out.

import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer, type Server, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, call, removeDir, startTestServer, type TestServer } from './harness';
import {
  debianFiles,
  freePort,
  freePorts,
  type PresenceNginx,
  runNginx,
  runPresenceNginx,
  SITE_CONF,
  siteFor,
  throwawayCertificate,
} from './nginx';

let s: TestServer;
let nginx: PresenceNginx;
let host: string;

beforeAll(async () => {
  s = await startTestServer({ env: { PRESENCE_TRUSTED_PROXIES: '127.0.0.1' } });
  host = new URL(s.url).host;
  nginx = await runPresenceNginx([host, host, host]);
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  await s?.close();
  if (s) removeDir(s.dataDir);
});

type Reply = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** A request over HTTPS to 127.0.0.1:port, trusting only `ca`, named presence.example.com (SNI and Host). */
function overTls(port: number, ca: string, path: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, path, ca, servername: 'presence.example.com', headers: { host: 'presence.example.com' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The TLS handshake's outcome at 127.0.0.1:port with these client options: the protocol and ALPN agreed, or the error. */
function handshake(
  port: number,
  ca: string,
  options: Record<string, unknown>,
): Promise<{ protocol?: string | null; alpn?: string | false | null; error?: string }> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'presence.example.com', ...options }, () => {
      resolve({ protocol: socket.getProtocol(), alpn: socket.alpnProtocol });
      socket.end();
    });
    socket.on('error', (e) => resolve({ error: e.message }));
  });
}

const HEX32 = /^[0-9a-f]{32}$/;

/** nginx's own answer: problem+json of `type` and `status`, its request id in the header and the body alike. */
function expectProblem(a: Answer, status: number, type: string) {
  expect(a.status, a.text).toBe(status);
  expect(a.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(a.json).toMatchObject({ type, status });
  expect(a.json.request_id).toMatch(HEX32);
  expect(a.headers.get('x-request-id')).toBe(a.json.request_id);
}

describe('deploy/nginx/nginx.conf with the site, over TLS', () => {
  it('serves the API over HTTPS with the certificate of the site file, TLS 1.2 and 1.3 only, HTTP/2 offered', async () => {
    const health = await overTls(nginx.ports.tls, nginx.ca, '/v1/health');
    expect(health.status, health.body).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ ok: true });
    expect(await handshake(nginx.ports.tls, nginx.ca, { ALPNProtocols: ['h2', 'http/1.1'] })).toMatchObject({
      protocol: 'TLSv1.3',
      alpn: 'h2',
    });
    expect(await handshake(nginx.ports.tls, nginx.ca, { maxVersion: 'TLSv1.2' })).toMatchObject({ protocol: 'TLSv1.2' });
    // A client that offers only TLS 1.0/1.1 (allowed on its side) gets no session.
    const old = await handshake(nginx.ports.tls, nginx.ca, { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' });
    expect(old.error, JSON.stringify(old)).toBeDefined();
  });

  it('redirects plain HTTP from outside to HTTPS', async () => {
    // node:http, since fetch does not let a caller set Host.
    const r = await new Promise<{ status?: number; location?: string }>((resolve, reject) =>
      httpGet(
        { host: '127.0.0.1', port: nginx.ports.redirect, path: '/v1/health?x=1', headers: { host: 'presence.example.com' } },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode, location: res.headers.location });
        },
      ).on('error', reject),
    );
    expect(r).toEqual({ status: 301, location: 'https://presence.example.com/v1/health?x=1' });
  });

  it("passes the client's X-Request-Id when it is fit, its own otherwise; the server echoes it and nginx logs it", async () => {
    const mine = await call(nginx.url, 'GET', '/v1/health', { headers: { 'x-request-id': 'trace-42.a_b' } });
    expect(mine.headers.get('x-request-id')).toBe('trace-42.a_b');
    const none = await call(nginx.url, 'GET', '/v1/health');
    const given = none.headers.get('x-request-id') as string;
    expect(given).toMatch(HEX32);
    // One with a quote (the servers would take it; nginx writes ids into JSON) is replaced.
    const unfit = await call(nginx.url, 'GET', '/v1/health', { headers: { 'x-request-id': 'a"b' } });
    expect(unfit.headers.get('x-request-id')).toMatch(HEX32);
    // Ids that could hold a secret are replaced before anything logs them, as the servers do:
    // a link code (20 letters and digits), a key, more than 64 characters.
    for (const secretish of ['ab12cd34ef56gh78ij90', 'prs_live_x', `${'a-'.repeat(32)}b`]) {
      const r = await call(nginx.url, 'GET', '/v1/health', { headers: { 'x-request-id': secretish } });
      expect(r.headers.get('x-request-id'), secretish).toMatch(HEX32);
      expect(JSON.stringify(nginx.accessLog())).not.toContain(secretish);
    }
    const uuid = '0d6f1a4e-9b7c-4c2a-8f3e-1a2b3c4d5e6f';
    expect((await call(nginx.url, 'GET', '/v1/health', { headers: { 'x-request-id': uuid } })).headers.get('x-request-id')).toBe(uuid);
    const viaTls = await overTls(nginx.ports.tls, nginx.ca, '/v1/health');
    expect(viaTls.headers['x-request-id']).toMatch(HEX32);

    const logged = nginx.accessLog();
    for (const id of ['trace-42.a_b', given, unfit.headers.get('x-request-id'), viaTls.headers['x-request-id']])
      expect(
        logged.find((l) => l.request_id === id),
        `${id} in ${JSON.stringify(logged)}`,
      ).toMatchObject({
        method: 'GET',
        path: '/v1/health',
        status: 200,
        upstream: host,
      });
  });

  it('keeps link codes and query strings out of its log', async () => {
    const r = await call(nginx.url, 'POST', '/v1/links/SECRET-CODE-9/redeem?note=private', { key: s.live, body: {} });
    expect(r.status).toBeGreaterThanOrEqual(400);
    const line = nginx.accessLog().find((l) => l.request_id === r.headers.get('x-request-id'));
    expect(line).toMatchObject({ method: 'POST', path: '/v1/links/{code}/redeem' });
    expect(readFileSync(`${nginx.dir}/presence.access.log`, 'utf8')).not.toMatch(/SECRET-CODE|private/);
  });

  it('answers a body or headers too large, and /metrics, itself as problem+json', async () => {
    const big = await call(nginx.url, 'POST', '/v1/memory/pin', {
      key: s.live,
      rawBody: 'x'.repeat(1_100_000),
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(big, 413, 'payload_too_large');
    const headers = await call(nginx.url, 'GET', '/v1/health', { headers: { 'x-padding': 'y'.repeat(20_000) } });
    expectProblem(headers, 431, 'headers_too_large');
    expectProblem(await call(nginx.url, 'GET', '/metrics'), 404, 'not_found');
  });
});

describe("deploy/nginx: nginx's own answers when no server can", () => {
  let down: PresenceNginx;
  let slow: PresenceNginx;
  let silent: Server;
  const held: Socket[] = [];

  beforeAll(async () => {
    // Nothing listens on these: every server refuses, as when all three restart at once.
    const dead = [await freePort(), await freePort(), await freePort()].map((p) => `127.0.0.1:${p}`);
    down = await runPresenceNginx(dead);
    // A server that takes the connection and never answers; the site's 1 h read timeout made 1 s.
    silent = createServer((c) => held.push(c));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const at = `127.0.0.1:${(silent.address() as { port: number }).port}`;
    slow = await runPresenceNginx([at, at, at], (site) => site.replace('proxy_read_timeout 1h;', 'proxy_read_timeout 1s;'));
  }, 60_000);

  afterAll(async () => {
    await down?.stop();
    await slow?.stop();
    for (const c of held) c.destroy();
    await new Promise<void>((r) => (silent ? silent.close(() => r()) : r()));
  });

  it('answers 503 problem+json `unavailable` with Retry-After, not an HTML page, when every server refuses (nginx: 502)', async () => {
    for (const method of ['GET', 'POST']) {
      const r = await call(down.url, method, '/v1/presence/me', { key: s.live, ...(method === 'POST' ? { body: {} } : {}) });
      expectProblem(r, 503, 'unavailable');
      expect(r.headers.get('retry-after')).toBe('1');
    }
    // And again while nginx skips them all ("no live upstreams"), and over TLS.
    const again = await overTls(down.ports.tls, down.ca, '/v1/health');
    expect(again.status).toBe(503);
    expect(again.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(again.body).request_id).toBe(again.headers['x-request-id']);
    expect(down.accessLog().some((l) => l.status === 503 && String(l.upstream_status).includes('502'))).toBe(true);
  });

  it('answers 503 problem+json `unavailable` when a server does not answer in time (nginx: 504)', async () => {
    const r = await call(slow.url, 'GET', '/v1/health', { headers: { 'x-request-id': 'slow-1' } });
    expect(r.status, r.text).toBe(503);
    expect(r.json).toMatchObject({ type: 'unavailable', status: 503, request_id: 'slow-1' });
    expect(r.headers.get('x-request-id')).toBe('slow-1');
  }, 30_000);
});

describe("deploy/nginx/presence.conf as a site in Debian's own nginx.conf", () => {
  it("serves Presence over TLS beside the host's other site, which keeps answering", async () => {
    const ports = await freePorts();
    const other = await freePort();
    let ca = '';
    const debian = await runNginx((dir) => {
      ca = throwawayCertificate(dir);
      return debianFiles(dir, {
        presence: siteFor(readFileSync(SITE_CONF, 'utf8'), [host, host, host], ports, dir),
        other: `server {\n  listen 127.0.0.1:${other};\n  server_name other.example.com;\n  return 200 "the other site\\n";\n}\n`,
      });
    }, ports.plain);
    try {
      const health = await overTls(ports.tls, ca, '/v1/health');
      expect(health.status, health.body).toBe(200);
      expect(health.headers['x-request-id']).toMatch(HEX32);
      expect(await (await fetch(`http://127.0.0.1:${other}/`)).text()).toBe('the other site\n');
      // Debian's http block allows TLS 1.0/1.1; the site's own server block does not.
      expect(
        (await handshake(ports.tls, ca, { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' })).error,
      ).toBeDefined();
      expect(debian.accessLog().some((l) => l.request_id === health.headers['x-request-id'])).toBe(true);
    } finally {
      await debian.stop();
    }
  });
});
