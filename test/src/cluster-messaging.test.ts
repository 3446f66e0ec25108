// Several servers on one PostgreSQL database behave as one for what travels between them:
// an event caused on one reaches streams on the others, Last-Event-ID resumes anywhere
// exactly once and in order, a duplicate Idempotency-Key on two servers has one effect and
// one answer, a server killed mid-request frees its key after the lease, revoking a key
// closes its streams everywhere, and a key's rate limit counts its requests on every server.
// Servers A, B and C run in this process on one database (each with its own data directory);
// the one killed with SIGKILL is a real child process.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, openStream, removeDir, startTestServer, type TestServer, tempDir } from './harness';
import { type Child, spawnServer } from './process';
import { startScriptedModel } from './scripted-model';
import { freshDatabaseEnv } from './test-database';

const dirs: string[] = [];
const servers: TestServer[] = [];
let env: Record<string, string>;
let a: TestServer;
let b: TestServer;
let c: TestServer;

/** Another server on the same database (its own data directory, the first server's keys). */
async function another(extra: Record<string, string> = {}, keys = { live: a.live, test: a.test }) {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const s = await startTestServer({ dataDir, env: { ...env, ...extra }, keys });
  servers.push(s);
  return s;
}

beforeAll(async () => {
  env = { ...(await freshDatabaseEnv()), PRESENCE_RATE_LIMIT: '100000/60s' };
  const dataDir = tempDir();
  dirs.push(dataDir);
  a = await startTestServer({ dataDir, env });
  servers.push(a);
  [b, c] = await Promise.all([another(), another()]);
}, 60_000);

afterAll(async () => {
  for (const s of servers) await s.close();
  for (const d of dirs) removeDir(d);
});

const pin = (s: TestServer, key: string) => call(s.url, 'POST', '/v1/memory/pin', { key: s.live, body: { key } });
const ids = (frames: { id?: string }[]) => frames.flatMap((f) => (f.id ? [Number(f.id)] : []));

describe('servers sharing one database', () => {
  it('an event caused on A arrives on a stream opened on B (and on C)', async () => {
    const onB = openStream(b.url, '/v1/events', b.live);
    const onC = openStream(c.url, '/v1/events', c.live);
    try {
      await Promise.all([onB.until(() => onB.cursors.length > 0), onC.until(() => onC.cursors.length > 0)]);
      expect((await pin(a, 'topic:cross-server')).status).toBe(200);
      const arrived = (s: typeof onB) => s.frames.some((f) => f.event === 'memory' && f.data.key === 'topic:cross-server');
      await Promise.all([onB.until(() => arrived(onB)), onC.until(() => arrived(onC))]);
    } finally {
      await Promise.all([onB.close(), onC.close()]);
    }
  });

  it('Last-Event-ID resumes on any server: a burst on A and C while B replays then goes live, each id once, in order', async () => {
    const first = openStream(a.url, '/v1/events', a.live);
    await first.until(() => first.cursors.length > 0);
    const from = first.cursors[0] as number;
    for (let i = 0; i < 20; i++) expect((await pin(i % 2 ? a : c, `topic:before-${i}`)).status).toBe(200);
    await first.until(() => first.frames.length >= 10);
    await first.close();
    const lastSeen = Math.max(...ids(first.frames).slice(0, 10));
    // Resume on B from the tenth event while A and C keep appending.
    const resumed = openStream(b.url, '/v1/events', b.live, { 'last-event-id': String(lastSeen) });
    const burst = Promise.all(
      Array.from({ length: 40 }, (_, i) => pin(i % 2 ? a : c, `topic:burst-${i}`).then((r) => expect(r.status).toBe(200))),
    );
    await burst;
    // Where the log stands now, as a live-only stream on C starts.
    const probe = openStream(c.url, '/v1/events', c.live);
    await probe.until(() => probe.cursors.length > 0);
    await probe.close();
    const end = probe.cursors[0] as number;
    expect(end).toBeGreaterThanOrEqual(from + 60);
    try {
      await resumed.until(() => ids(resumed.frames).at(-1) === end, 20_000);
      const got = ids(resumed.frames);
      expect(got).toEqual(Array.from({ length: end - lastSeen }, (_, i) => lastSeen + 1 + i));
    } finally {
      await resumed.close();
    }
  });

  it('a duplicate Idempotency-Key sent to A and B at once: one effect, the same answer', async () => {
    const body = { key: 'topic:idempotent-twins' };
    const [ra, rb] = await Promise.all(
      [a, b].map((s) => call(s.url, 'POST', '/v1/memory/pin', { key: s.live, body, idempotencyKey: 'twins-1' })),
    );
    expect([ra?.status, rb?.status]).toEqual([200, 200]);
    expect(ra?.text).toBe(rb?.text);
    // Exactly one of them ran it; the other replayed the stored bytes.
    expect([ra, rb].filter((r) => r?.headers.get('idempotent-replayed') === 'true')).toHaveLength(1);
    // And a chat turn: the thread holds it once.
    const turn = { text: 'hello from two servers at once' };
    const [ta, tb] = await Promise.all(
      [a, b].map((s) => call(s.url, 'POST', '/v1/messages', { key: s.live, body: turn, idempotencyKey: 'twins-turn' })),
    );
    expect([ta?.status, tb?.status]).toEqual([200, 200]);
    expect(ta?.json).toEqual(tb?.json);
    const thread = await call(c.url, 'GET', '/v1/messages?limit=50', { key: c.live });
    const turns = (thread.json.messages as { role: string; text: string }[]).filter((m) => m.role === 'user' && m.text === turn.text);
    expect(turns).toHaveLength(1);
  });

  it('revoking a key on A closes its stream on B', async () => {
    const made = await call(a.url, 'POST', '/v1/keys', { key: a.live, body: { name: 'to-revoke', scopes: ['talk'] } });
    expect(made.status).toBe(201);
    const onB = openStream(b.url, '/v1/events', made.json.secret);
    await onB.until(() => onB.cursors.length > 0);
    expect((await call(a.url, 'DELETE', `/v1/keys/${made.json.id}`, { key: a.live })).status).toBe(200);
    // A bounded wait, not a speed claim (how fast news crosses servers is the bench's, section
    // cluster-msg): B learns of the revocation and ends the stream.
    await onB.until(() => onB.ended, 5_000);
    expect((await call(b.url, 'GET', '/v1/presence/me', { key: made.json.secret })).status).toBe(401);
  });

  it("a key's rate limit counts its requests on every server: what one admitted, another refuses once written", async () => {
    // Each server decides from memory and writes its counts with its next commit or within
    // 100 ms (core/src/cluster/postgres/request-rates.ts); the lag between servers is tested there.
    const limited = { PRESENCE_RATE_LIMIT: '6/3600s' };
    const [p, q] = await Promise.all([another(limited), another(limited)]);
    const made = await call(a.url, 'POST', '/v1/keys', { key: a.live, body: { name: 'limited', scopes: ['talk', 'memory:read'] } });
    const key = made.json.secret as string;
    const keyId = made.json.id as string;
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await call(p.url, 'GET', '/v1/memory', { key }));
    expect(answers.map((r) => [r.status, r.headers.get('ratelimit-remaining')])).toEqual([
      [200, '5'],
      [200, '4'],
      [200, '3'],
      [200, '2'],
      [200, '1'],
      [200, '0'],
      [429, '0'],
    ]);
    expect(Number(answers[6]?.headers.get('retry-after'))).toBeGreaterThan(0);
    // Written within moments, with no request to carry it; then q, which never saw the key, refuses it too.
    const db = postgres(env.PRESENCE_DATABASE_URL as string, { max: 1, onnotice: () => undefined });
    try {
      await vi.waitFor(
        async () => {
          const [row] = await db<{ n: number }[]>`SELECT cardinality(times) AS n FROM rate_logs WHERE scope = 'key' AND id = ${keyId}`;
          expect(row?.n).toBe(6);
        },
        { timeout: 10_000, interval: 50 },
      );
    } finally {
      await db.end();
    }
    const over = await call(q.url, 'GET', '/v1/memory', { key });
    expect([over.status, over.headers.get('ratelimit-remaining')]).toEqual([429, '0']);
  });
});

describe('a server killed mid-request', () => {
  let model: Awaited<ReturnType<typeof startScriptedModel>>;
  let child: Child | null = null;
  beforeAll(async () => {
    model = await startScriptedModel();
  });
  afterAll(async () => {
    child?.proc.kill('SIGKILL');
    await model?.close();
  });

  it('frees its Idempotency-Key claim after the lease: the retry on another server runs', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const llm = { PRESENCE_LLM_BASE_URL: model.baseUrl, PRESENCE_LLM_API_KEY: 'sk-test' };
    child = await spawnServer({ ...env, ...llm, PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0' }, { timeoutMs: 60_000 });
    const survivor = await another(llm);
    expect(
      (await call(survivor.url, 'PATCH', '/v1/presence/me', { key: a.live, body: { route: { model: 'openai:gpt-test' } } })).status,
    ).toBe(200);
    try {
      // The first attempt reaches the model on the child, which never answers; kill the child then.
      model.script({ hang: true }, { text: ['answered after the takeover'] });
      const turn = { text: 'a turn whose server dies' };
      const first = call(child.url, 'POST', '/v1/messages', { key: a.live, body: turn, idempotencyKey: 'dies-mid-request' }).catch(
        () => null,
      );
      await waitFor(() => model.requests.length === 1, 20_000);
      child.proc.kill('SIGKILL');
      await child.exited;
      await first;
      // It waits for the dead server's lease (10 s from its last renewal), not for ever: a
      // retry that waited on would end in the test's timeout, one that gave up would be a 409.
      const retry = await call(survivor.url, 'POST', '/v1/messages', { key: a.live, body: turn, idempotencyKey: 'dies-mid-request' });
      expect(retry.status).toBe(200);
      expect(retry.json.reply).toBe('answered after the takeover');
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      // A later duplicate replays the takeover's answer.
      const again = await call(b.url, 'POST', '/v1/messages', { key: a.live, body: turn, idempotencyKey: 'dies-mid-request' });
      expect([again.status, again.headers.get('idempotent-replayed'), again.json.reply]).toEqual([200, 'true', retry.json.reply]);
    } finally {
      await call(a.url, 'PATCH', '/v1/presence/me', { key: a.live, body: { route: { model: 'local' } } });
    }
  }, 90_000);
});

async function waitFor(pred: () => boolean, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
