// The operator commands against PostgreSQL: `migrate [--status]`, `accounts create` beside a
// running server, and `import-lowdb` — an embedded install copied into a database, after
// which its keys, records and event ids carry on against a server on the database.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadMigrations } from '@presence/core/postgres';
import { createSoftAuthenticator } from '@presence/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { call, openStream, removeDir, startTestServer, tempDir } from './harness';
import { childEnv, serverCli } from './process';
import { freshDatabaseEnv } from './test-database';

/** The schema version a freshly migrated database is at: the last migration shipped. */
const SCHEMA = Math.max(...loadMigrations().map((m) => m.version));

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) removeDir(d);
});
const dir = () => {
  const d = tempDir();
  dirs.push(d);
  return d;
};

const cli = (args: string[], env: Record<string, string | undefined>) =>
  spawnSync(process.execPath, [serverCli, ...args], { env: childEnv(env), encoding: 'utf8', timeout: 60_000 });

/** The newest event id the stream replays for `key`. */
async function latestEventId(url: string, key: string, atLeast: number): Promise<number> {
  const stream = openStream(url, '/v1/events?last_event_id=0', key);
  try {
    await stream.until(() => stream.frames.filter((f) => f.id).length >= atLeast);
    return Math.max(...stream.frames.filter((f) => f.id).map((f) => Number(f.id)));
  } finally {
    await stream.close();
  }
}

describe('presence-server on PostgreSQL', () => {
  it('migrate --status lists what is pending and changes nothing; migrate applies it; a second run has nothing to do', async () => {
    const env = await freshDatabaseEnv({ empty: true });
    const before = cli(['migrate', '--status'], env);
    expect([before.status, before.stderr]).toEqual([0, '']);
    const pending = loadMigrations()
      .map((m) => `  pending  ${String(m.version).padStart(4, '0')}_${m.name}\n`)
      .join('');
    expect(before.stdout).toMatch(/^schema version 0 \(127\.0\.0\.1:\d+\/presence\w*\)\n/);
    expect(before.stdout.slice(before.stdout.indexOf('\n') + 1)).toBe(pending);
    expect(cli(['migrate', '--status'], env).stdout).toBe(before.stdout);

    const applied = cli(['migrate'], env);
    expect(applied.status).toBe(0);
    const count = loadMigrations().length;
    expect(applied.stdout).toMatch(
      new RegExp(`^applied ${count} migration\\(s\\) to .*\\nschema version ${SCHEMA} .*\\n {2}applied {2}0001_init {2}\\d{4}-`),
    );
    expect(cli(['migrate'], env).stdout).toMatch(new RegExp(`is up to date\\nschema version ${SCHEMA} `));

    const unset = cli(['migrate'], { PRESENCE_DATABASE_URL: undefined });
    expect([unset.status, unset.stderr]).toEqual([
      2,
      'error: PRESENCE_DATABASE_URL is not set: this command works on a PostgreSQL database\n',
    ]);
  }, 120_000);

  it('accounts create works on the database while a server runs on it, and its key works there at once', async () => {
    const env = await freshDatabaseEnv();
    const s = await startTestServer({ dataDir: dir(), env });
    try {
      const r = cli(['accounts', 'create', 'acme'], { ...env, PRESENCE_DATA_DIR: s.dataDir });
      expect([r.status, r.stderr]).toEqual([0, '']);
      const key = /admin key (\S+)/.exec(r.stdout)?.[1] as string;
      // acme's own keys: just this one (default's list has its live and test keys).
      const listed = await call(s.url, 'GET', '/v1/keys', { key });
      expect([listed.status, listed.json.keys?.map((k: { name: string }) => k.name) ?? listed.json]).toEqual([200, ['admin']]);
    } finally {
      await s.close();
    }
  });

  it('import-lowdb copies an embedded install: same keys, same records, event ids carry on; a non-empty database is refused', async () => {
    const dataDir = dir();
    // The embedded install: keys, memory, an answered Idempotency-Key, thread, a link code, events.
    const lowdb = await startTestServer({ dataDir, env: { PRESENCE_WEBHOOK_ALLOW_PRIVATE: '1' } });
    const pin = { key: lowdb.live, idempotencyKey: 'pin-1', body: { key: 'topic:moving', note: 'to postgres' } };
    const made = await call(lowdb.url, 'POST', '/v1/keys', {
      key: lowdb.live,
      idempotencyKey: 'key-1',
      body: { name: 'bot', scopes: ['talk'] },
    });
    expect(made.status).toBe(201);
    expect((await call(lowdb.url, 'POST', '/v1/memory/pin', pin)).status).toBe(200);
    expect((await call(lowdb.url, 'POST', '/v1/messages', { key: lowdb.live, body: { text: 'hello there' } })).status).toBe(200);
    expect((await call(lowdb.url, 'POST', '/v1/links', { key: lowdb.live, body: {} })).status).toBe(201);
    // A surface (a bot) linked to the account, and its feed a position further on.
    const bot = await (lowdb.core.surfaces as NonNullable<typeof lowdb.core.surfaces>).create('bot');
    const code = (await call(lowdb.url, 'POST', '/v1/links', { key: lowdb.live, body: {} })).json.code;
    const redeemed = await call(lowdb.url, 'POST', `/v1/links/${code}/redeem`, {
      key: bot.token,
      body: { surface: 'telegram', user_id: 'ada', name: 'ada' },
    });
    expect(redeemed.status).toBe(200);
    const feed = openStream(lowdb.url, '/v1/surface/events', bot.token);
    await call(lowdb.url, 'POST', '/v1/memory/pin', { key: lowdb.live, body: { key: 'topic:linked', note: 'seen by the bot' } });
    await feed.until(() => feed.frames.some((f) => f.id));
    const botCursor = Number(feed.frames.find((f) => f.id)?.id);
    await feed.close();
    // A passkey (the soft authenticator answers the enroll page), then a webhook endpoint, made
    // last so that no event comes after it (its receiver is a closed port on this machine).
    const soft = createSoftAuthenticator({ origin: `http://localhost:${new URL(lowdb.url).port}` });
    const enroll = new URL((await call(lowdb.url, 'POST', '/v1/passkeys/enroll', { key: lowdb.live, body: { name: 'laptop' } })).json.url)
      .pathname;
    const ceremony = await call(lowdb.url, 'POST', `${enroll}/options`, { body: {} });
    expect((await call(lowdb.url, 'POST', enroll, { body: soft.register(ceremony.json) })).status).toBe(201);
    const hook = await call(lowdb.url, 'POST', '/v1/webhooks', {
      key: lowdb.live,
      body: { url: 'http://127.0.0.1:9/hook', events: ['memory'] },
    });
    expect(hook.status, hook.text).toBe(201);
    const oldLatest = await latestEventId(lowdb.url, lowdb.live, 1);
    const thread = (await call(lowdb.url, 'GET', '/v1/messages?limit=10', { key: lowdb.live })).json;
    const keys = { live: lowdb.live, test: lowdb.test };
    await lowdb.close();

    const database = await freshDatabaseEnv({ empty: true });
    const masterKey = readFileSync(path.join(dataDir, 'master.key'), 'utf8').trim();
    const wrongKey = cli(['import-lowdb', dataDir], database);
    expect([wrongKey.status, wrongKey.stderr]).toEqual([
      2,
      expect.stringMatching(/^error: PRESENCE_MASTER_KEY is not the key that sealed/),
    ]);
    const env = { ...database, PRESENCE_MASTER_KEY: masterKey };
    const r = cli(['import-lowdb', dataDir], env);
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/\n {2}accounts +1\n {2}keys +4\n/);
    expect(r.stdout).toMatch(new RegExp(`\\n {2}events +${oldLatest}\\n`));
    expect(r.stdout).toMatch(/\n {2}idempotency +2\n/);
    expect(r.stdout).toMatch(/\n {2}links +2\n {2}surfaces +1\n {2}surface_links +1\n {2}webhooks +1\n/);
    expect(r.stdout).toMatch(/\n {2}passkeys +1\n/);
    const again = cli(['import-lowdb', dataDir], env);
    expect([again.status, again.stderr]).toEqual([1, expect.stringMatching(/^error: the database is not empty \(table \w+ has rows\)/)]);

    // A server on the database, with its own data directory: the same keys and records.
    const pg = await startTestServer({ dataDir: dir(), env, keys });
    try {
      expect((await call(pg.url, 'GET', '/v1/health')).json.store).toEqual({ kind: 'postgres', schema: SCHEMA });
      expect((await call(pg.url, 'GET', '/v1/presence/me', { key: keys.live })).status).toBe(200);
      expect((await call(pg.url, 'GET', '/v1/presence/me', { key: made.json.secret })).status).toBe(200);
      const hooks = (await call(pg.url, 'GET', '/v1/webhooks', { key: keys.live })).json;
      expect(hooks.webhooks.map((w: { id: string; cursor: number }) => [w.id, w.cursor])).toEqual([[hook.json.id, hook.json.cursor]]);
      const passkeys = (await call(pg.url, 'GET', '/v1/passkeys', { key: keys.live })).json;
      expect(passkeys.passkeys.map((p: { name: string }) => p.name)).toEqual(['laptop']);
      expect((await call(pg.url, 'GET', '/v1/memory', { key: keys.live })).json.pinned).toEqual([
        expect.objectContaining({ key: 'topic:linked' }),
        expect.objectContaining({ key: 'topic:moving' }),
      ]);
      expect((await call(pg.url, 'GET', '/v1/messages?limit=10', { key: keys.live })).json).toEqual(thread);
      // The stored answer replays (it opens under the same master key), its secret included.
      const replay = await call(pg.url, 'POST', '/v1/keys', {
        key: keys.live,
        idempotencyKey: 'key-1',
        body: { name: 'bot', scopes: ['talk'] },
      });
      expect([replay.status, replay.json]).toEqual([201, made.json]);
      // The surface token, its link and its feed came along: it acts for its user, and its
      // stream resumes from the cursor the bot kept.
      const acting = { authorization: `Bearer ${bot.token}`, 'presence-acting-for': redeemed.json.key_id };
      expect((await call(pg.url, 'GET', '/v1/presence/me', { headers: acting })).status).toBe(200);
      const resumed = openStream(pg.url, '/v1/surface/events', bot.token, { 'last-event-id': String(botCursor) });
      // The next event takes the next id.
      const stream = openStream(pg.url, `/v1/events?last_event_id=${oldLatest}`, keys.live);
      await call(pg.url, 'POST', '/v1/memory/pin', {
        ...pin,
        idempotencyKey: 'pin-2',
        body: { key: 'topic:next', note: 'after the move' },
      });
      await stream.until(() => stream.frames.some((f) => f.id));
      expect(Number(stream.frames.find((f) => f.id)?.id)).toBe(oldLatest + 1);
      await stream.close();
      await resumed.until(() => resumed.frames.some((f) => f.id));
      expect(resumed.frames.filter((f) => f.id).map((f) => Number(f.id))).toEqual([botCursor + 1]);
      await resumed.close();
    } finally {
      await pg.close();
    }
  }, 180_000); // two servers, a devnet each, and the CLI twice
});
