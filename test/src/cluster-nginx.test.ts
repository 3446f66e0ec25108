// The deployment's balancer, for real: Debian's nginx running deploy/nginx/ (the files an
// operator installs; only their ports and paths moved) in front of three servers on one
// PostgreSQL database, which trust it as deploy/presence.env says (PRESENCE_TRUSTED_PROXIES).
// Requests spread over the servers; an events stream comes through as it is written with the
// file's own settings alone (nginx here ignores the servers' X-Accel-Buffering: no); each
// client is known by the address nginx forwards, so one that exhausts its failed
// authentications locks out only itself; /metrics is not served; and when one server is
// killed (kill -9) every request through nginx still succeeds — reads and writes — and a
// stream resumed through it replays.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from './cluster';
import { callFrom } from './from-address';
import { call, openStream } from './harness';
import { ignoringServerBufferingHint, mainLocation, type Nginx, runPresenceNginx, SITE_CONF } from './nginx';
import { freshDatabaseEnv } from './test-database';

const conf = readFileSync(SITE_CONF, 'utf8');
const trustedProxies = /^PRESENCE_TRUSTED_PROXIES=(.+)$/m.exec(
  readFileSync(path.join(path.dirname(SITE_CONF), '../presence.env'), 'utf8'),
)?.[1];
let c: Cluster;
let nginx: Nginx;

beforeAll(async () => {
  if (!trustedProxies) throw new Error('deploy/presence.env sets no PRESENCE_TRUSTED_PROXIES');
  c = await startCluster({
    database: (await freshDatabaseEnv()) as never,
    servers: 3,
    env: { PRESENCE_TRUSTED_PROXIES: trustedProxies, PRESENCE_AUTH_FAIL_LIMIT: '3/60s' },
  });
  nginx = await runPresenceNginx(
    c.servers.map((s) => new URL(s.url).host),
    ignoringServerBufferingHint,
  );
}, 180_000);

afterAll(async () => {
  await nginx?.stop();
  await c?.stop();
}, 60_000);

const serverId = async (base: string) => (await call(base, 'GET', '/v1/health')).json?.server?.id as string | undefined;

describe('deploy/nginx in front of three servers', () => {
  it('spreads requests over every server, with no sticky sessions', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 9; i++) seen.add((await serverId(nginx.url)) ?? 'none');
    expect([...seen].sort()).toEqual(c.servers.map((s) => s.id).sort());
  });

  it('does not serve /metrics, which each server still serves on its own port', async () => {
    expect((await call(nginx.url, 'GET', '/metrics')).status).toBe(404);
    expect((await call(c.servers[0]?.url as string, 'GET', '/metrics')).status).toBe(200);
  });

  it('passes an events stream through as it is written, unbuffered by the file itself: a write through nginx arrives on the open stream', async () => {
    // nginx 1.22 passes a chunked stream's frames on promptly even buffered; what the line
    // adds is that a client that stops reading holds the server back instead of nginx
    // spooling the stream into memory and temp files. Showing that takes megabytes of
    // stream, so the line itself is checked here, and the stream below runs on it alone.
    expect(mainLocation(conf)).toMatch(/^\s*proxy_buffering off;/m);
    const stream = openStream(nginx.url, '/v1/events', c.live);
    try {
      await stream.until(() => stream.status === 200 && stream.cursors.length > 0);
      const pin = await call(nginx.url, 'POST', '/v1/memory/pin', { key: c.live, body: { key: 'pair:WETH-USDC', note: 'through nginx' } });
      expect(pin.status, pin.text).toBe(200);
      await stream.until(() => stream.frames.some((f) => f.event === 'memory' && f.data.key === 'pair:WETH-USDC'));
      expect(stream.ended).toBe(false);
    } finally {
      await stream.close();
    }
  });

  it("takes each client's address from X-Forwarded-For: one that exhausts its failed authentications locks out only itself", async () => {
    const me = (from: string, key: string, headers?: Record<string, string>) =>
      callFrom(from, nginx.url, 'GET', '/v1/presence/me', { key, headers });
    /** Whether `attempt` is refused for failed authentications within a few tries (a server may hear of a full budget a moment late). */
    const refused = async (attempt: () => ReturnType<typeof me>) => {
      for (let i = 0; i < 10; i++) if ((await attempt()).json?.limit === 'auth_failures') return true;
      return false;
    };
    // 127.0.0.2 guesses keys until even the right one is refused from there…
    const wrong = `prs_live_${'x'.repeat(40)}`;
    const guessThenTry = async () => {
      await me('127.0.0.2', wrong);
      return me('127.0.0.2', c.live);
    };
    expect(await refused(guessThenTry)).toBe(true);
    // …while 127.0.0.3, through the same nginx to the same servers, gets through every time,
    for (let i = 0; i < 6; i++) expect((await me('127.0.0.3', c.live)).status).toBe(200);
    // and 127.0.0.2 cannot pass for it: nginx appends the address it saw to the one claimed.
    expect(await refused(() => me('127.0.0.2', c.live, { 'x-forwarded-for': '127.0.0.3' }))).toBe(true);
  });

  it('keeps answering through the kill of one server: reads, writes, and a resumed stream', async () => {
    const victim = c.servers[1];
    if (!victim) throw new Error('no second server');
    await victim.kill();
    const statuses: number[] = [];
    const ids = new Set<string>();
    for (let i = 0; i < 9; i++) {
      const h = await call(nginx.url, 'GET', '/v1/health');
      statuses.push(h.status);
      ids.add(h.json?.server?.id);
      const pin = await call(nginx.url, 'POST', '/v1/memory/pin', { key: c.live, body: { key: `topic:after-kill-${i}` } });
      statuses.push(pin.status);
    }
    expect(
      statuses.every((s) => s === 200),
      JSON.stringify(statuses),
    ).toBe(true);
    expect(ids.has(victim.id)).toBe(false);
    // Every write is there, read back through nginx, and a stream resumed from 0 replays them.
    const memory = await call(nginx.url, 'GET', '/v1/memory', { key: c.live });
    const keys = [...memory.json.pinned, ...memory.json.fading].map((m: { key: string }) => m.key);
    for (let i = 0; i < 9; i++) expect(keys).toContain(`topic:after-kill-${i}`);
    const replay = openStream(nginx.url, '/v1/events?last_event_id=0', c.live);
    try {
      await replay.until(
        () => replay.frames.filter((f) => f.event === 'memory' && String(f.data.key).startsWith('topic:after-kill-')).length === 9,
      );
    } finally {
      await replay.close();
    }
  });
});
