// Surfaces on two servers sharing one PostgreSQL database: surface tokens made and revoked by
// `presence-server surfaces` while the servers run; a key redeemed through one server is
// acted for on the other; the surface stream carries events appended on either server, in
// per-account order, and resumes on the other server from the same cursor with nothing lost
// or repeated. And a revocation bites at once on the other server: a surface token's or a
// key's open streams there close within 2 s (the change is announced by NOTIFY at commit; the
// servers below beat once a minute, so no heartbeat does it).
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, openStream, removeDir, startTestServer, type TestServer, tempDir } from './harness';
import { childEnv, serverCli } from './process';
import { freshDatabaseEnv } from './test-database';

const dirs: string[] = [];
const servers: TestServer[] = [];
let env: Record<string, string>;
let a: TestServer;
let b: TestServer;

const cli = (args: string[]) =>
  spawnSync(process.execPath, [serverCli, ...args], {
    env: childEnv({ ...env, PRESENCE_DATA_DIR: tempDir() }),
    encoding: 'utf8',
    timeout: 60_000,
  });

beforeAll(async () => {
  env = { ...(await freshDatabaseEnv()), PRESENCE_RATE_LIMIT: '100000/60s' };
  for (let i = 0; i < 2; i++) {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const first = servers[0];
    servers.push(
      await startTestServer({ dataDir, env, heartbeatMs: 200, keys: first ? { live: first.live, test: first.test } : undefined }),
    );
  }
  [a, b] = servers as [TestServer, TestServer];
}, 60_000);

afterAll(async () => {
  for (const s of servers) await s.close();
  for (const d of dirs) removeDir(d);
});

describe('surfaces across servers', () => {
  it('surfaces create/list/revoke work beside running servers; the stream resumes on the other server', async () => {
    const made = cli(['surfaces', 'create', 'cluster-bot']);
    expect(made.stderr).toBe('');
    const token = /surface token (prs_surface_\S+)/.exec(made.stdout)?.[1] as string;
    expect(token).toBeTruthy();
    const listed = cli(['surfaces', 'list']);
    expect(listed.stdout).toMatch(/cluster-bot/);
    expect(listed.stdout).not.toContain(token);

    const code = (await call(a.url, 'POST', '/v1/links', { key: a.live, body: {} })).json.code;
    const r = await call(a.url, 'POST', `/v1/links/${code}/redeem`, {
      key: token,
      body: { surface: 'telegram', user_id: 'u1', name: 'u1' },
    });
    expect(r.status).toBe(200);
    const as = { authorization: `Bearer ${token}`, 'presence-acting-for': r.json.key_id as string };
    expect((await call(b.url, 'GET', '/v1/presence/me', { headers: as })).status).toBe(200);

    const onA = openStream(a.url, '/v1/surface/events', token);
    await onA.until(() => onA.cursors.length > 0);
    // Pins through both servers at once, for one account: one frame each, in the account's order.
    const pins = Array.from({ length: 10 }, (_, i) =>
      call(i % 2 ? a.url : b.url, 'POST', '/v1/memory/pin', { headers: as, body: { key: `topic:c${i}` } }),
    );
    expect((await Promise.all(pins)).map((p) => p.status)).toEqual(Array(10).fill(200));
    await onA.until(() => onA.frames.length >= 10);
    const eventIds = onA.frames.map((f) => f.data.event.id as number);
    expect(eventIds).toEqual([...eventIds].sort((x, y) => x - y));
    expect(new Set(eventIds).size).toBe(10);
    await onA.close();

    const last = onA.frames.at(-1)?.id as string;
    await call(a.url, 'POST', '/v1/memory/pin', { headers: as, body: { key: 'topic:after' } });
    const onB = openStream(b.url, '/v1/surface/events', token, { 'last-event-id': last });
    await onB.until(() => onB.frames.length >= 1);
    expect(onB.frames.map((f) => f.data.event.data.key)).toEqual(['topic:after']);

    const revoked = cli(['surfaces', 'revoke', 'cluster-bot']);
    expect(revoked.stdout).toMatch(/revoked surface srf_/);
    await onB.until(() => onB.ended);
    expect((await call(a.url, 'GET', '/v1/presence/me', { headers: as })).status).toBe(401);
  });
});

describe('revocation on another server', () => {
  // The bound: a revoked credential's streams close on every server within 2 s.
  const BOUND_MS = 2_000;
  let quiet: TestServer;
  beforeAll(async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    quiet = await startTestServer({ dataDir, env, heartbeatMs: 60_000, keys: { live: a.live, test: a.test } });
    servers.push(quiet);
  }, 60_000);

  it("closes a surface token's stream on the other server within 2 s", async () => {
    const made = await (a.core.surfaces as NonNullable<typeof a.core.surfaces>).create('revoked-bot');
    const stream = openStream(quiet.url, '/v1/surface/events', made.token);
    await stream.until(() => stream.cursors.length > 0 || stream.status === 200);
    await (a.core.surfaces as NonNullable<typeof a.core.surfaces>).revoke(made.surface.id);
    await stream.until(() => stream.ended, BOUND_MS);
  });

  it("closes a key's streams on the other server within 2 s", async () => {
    const made = await call(a.url, 'POST', '/v1/keys', { key: a.live, body: { name: 'to-revoke', scopes: ['talk'] } });
    expect(made.status).toBe(201);
    const stream = openStream(quiet.url, '/v1/events', made.json.secret as string);
    await stream.until(() => stream.status === 200);
    expect((await call(a.url, 'DELETE', `/v1/keys/${made.json.id}`, { key: a.live })).status).toBeLessThan(300);
    await stream.until(() => stream.ended, BOUND_MS);
  });
});
