// Caps on open streams (issue 13): per key, per account and server-wide, for events streams
// and streamed turns alike. Past a cap the answer is a problem with Retry-After; health,
// writes and plain reads keep answering while every cap is full; closing or revoking frees
// slots. Small caps from the environment, a real server on loopback.
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, call, openStream, removeDir, startTestServer, type TestServer } from './harness';

const PER_KEY = 3;
const PER_ACCOUNT = 5;
const TOTAL = 7;
/** The least the configuration allows: 100 for streams, 100 kept for everything else. */
const CONNECTIONS = 200;

type Stream = ReturnType<typeof openStream>;

describe('stream caps', () => {
  let s: TestServer;
  const open: Stream[] = [];
  beforeAll(async () => {
    s = await startTestServer({
      env: {
        PRESENCE_MAX_STREAMS_PER_KEY: String(PER_KEY),
        PRESENCE_MAX_STREAMS_PER_ACCOUNT: String(PER_ACCOUNT),
        PRESENCE_MAX_STREAMS: String(TOTAL),
        PRESENCE_MAX_CONNECTIONS: String(CONNECTIONS),
        PRESENCE_RATE_LIMIT: '10000/60s',
      },
    });
  });
  afterAll(async () => {
    await Promise.all(open.map((st) => st.close()));
    await s.close();
    removeDir(s.dataDir);
  });

  const stream = async (key: string) => {
    const st = openStream(s.url, '/v1/events', key);
    open.push(st);
    await st.until(() => st.status !== 0 || st.ended);
    return st;
  };
  const newKey = async (admin: string, name: string) => {
    const r = await call(s.url, 'POST', '/v1/keys', { key: admin, body: { name, scopes: ['talk', 'memory:read', 'memory:write'] } });
    expect(r.status).toBe(201);
    return r.json as { id: string; secret: string };
  };
  const refused = (r: Answer, status: number, type: string, limit: string) => {
    expect([r.status, r.headers.get('content-type'), r.json?.type, r.json?.limit]).toEqual([
      status,
      'application/problem+json; charset=utf-8',
      type,
      limit,
    ]);
    expect(r.json).toMatchObject({ status, title: expect.any(String), detail: expect.any(String) });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  };
  /** A freed slot is noticed when the server sees the connection close: ask until it has. */
  const opensEventually = async (key: string) => {
    for (let i = 0; i < 200; i++) {
      const st = await stream(key);
      if (st.status === 200) return st;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('no slot was freed');
  };

  let b: { id: string; secret: string };
  let c: { id: string; secret: string };
  let other: string;
  const bStreams: Stream[] = [];

  it('refuses the stream past a key cap with 429 rate_limited, naming the cap', async () => {
    for (let i = 0; i < PER_KEY; i++) expect((await stream(s.live)).status).toBe(200);
    refused(await call(s.url, 'GET', '/v1/events', { key: s.live }), 429, 'rate_limited', 'streams_per_key');
  });

  it('refuses past the account cap, whatever key of the account asks', async () => {
    b = await newKey(s.live, 'b');
    c = await newKey(s.live, 'c');
    for (let i = 0; i < PER_ACCOUNT - PER_KEY; i++) bStreams.push(await stream(b.secret));
    expect(bStreams.map((st) => st.status)).toEqual([200, 200]);
    refused(await call(s.url, 'GET', '/v1/events', { key: c.secret }), 429, 'rate_limited', 'streams_per_account');
  });

  it('refuses past the server-wide cap with 503 unavailable', async () => {
    other = (await s.core.accounts.create('acme')).admin.secret;
    for (let i = 0; i < TOTAL - PER_ACCOUNT; i++) expect((await stream(other)).status).toBe(200);
    refused(await call(s.url, 'GET', '/v1/events', { key: other }), 503, 'unavailable', 'streams');
  });

  it('a refusal closes its connection, so a client retrying in a loop cannot crowd health out', async () => {
    // 4 × 60 kept-alive connections would hold more than the server accepts (200) if the
    // refusals left them open; Node would then drop every new connection, health's included.
    const agents = Array.from({ length: 4 }, () => new Agent({ connections: 60 }));
    try {
      for (const dispatcher of agents) {
        const answers = await Promise.all(
          Array.from({ length: 60 }, async () => {
            const r = await request(`${s.url}/v1/events`, { dispatcher, headers: { authorization: `Bearer ${s.live}` } });
            await r.body.text();
            return `${r.statusCode} ${r.headers.connection}`;
          }),
        );
        expect(new Set(answers)).toEqual(new Set(['429 close']));
      }
      expect((await call(s.url, 'GET', '/v1/health')).status).toBe(200);
    } finally {
      await Promise.all(agents.map((a) => a.close()));
    }
  });

  it('with every cap full, health, writes and plain reads still answer; streamed turns count too', async () => {
    const health = await call(s.url, 'GET', '/v1/health');
    expect([health.status, health.json.ok]).toEqual([200, true]);
    expect((await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, body: { key: 'topic:caps' } })).status).toBe(200);
    expect((await call(s.url, 'GET', '/v1/memory', { key: c.secret })).status).toBe(200);
    expect((await call(s.url, 'POST', '/v1/messages', { key: s.live, body: { text: 'hello' } })).status).toBe(200);
    refused(
      await call(s.url, 'POST', '/v1/messages', { key: s.live, body: { text: 'hello', stream: true } }),
      429,
      'rate_limited',
      'streams_per_key',
    );
  });

  it('closing a stream frees its slot', async () => {
    refused(await call(s.url, 'GET', '/v1/events', { key: s.live }), 429, 'rate_limited', 'streams_per_key');
    const mine = open.find((st) => st.status === 200 && !st.ended) as Stream; // one of the live key's
    await mine.close();
    expect((await opensEventually(s.live)).status).toBe(200);
  });

  it("revoking a key still closes its streams, and frees the account's slots", async () => {
    expect(bStreams.some((st) => st.ended)).toBe(false);
    refused(await call(s.url, 'GET', '/v1/events', { key: c.secret }), 429, 'rate_limited', 'streams_per_account');
    expect((await call(s.url, 'DELETE', `/v1/keys/${b.id}`, { key: s.live })).status).toBe(200);
    await Promise.all(bStreams.map((st) => st.done));
    expect(bStreams.every((st) => st.ended)).toBe(true);
    expect((await opensEventually(c.secret)).status).toBe(200);
  });

  it('a streamed turn takes a slot only while it runs', async () => {
    // The account holds live 3 + c 1 of 5: one turn fits, and its slot comes back after it.
    const turn = await call(s.url, 'POST', '/v1/messages', { key: c.secret, body: { text: 'hello', stream: true } });
    expect([turn.status, turn.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
    expect(turn.text).toContain('event: done');
    expect((await opensEventually(c.secret)).status).toBe(200);
    refused(await call(s.url, 'GET', '/v1/events', { key: c.secret }), 429, 'rate_limited', 'streams_per_account');
  });
});
