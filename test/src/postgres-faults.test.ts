// Database faults on a deployment of two servers over one PostgreSQL (issue 30): while every
// connection to the database, the pools' and the LISTEN one alike, is cut every 300 ms
// (pg_terminate_backend), concurrent pins, re-pins, deletes and refused writes go to both
// servers. A lost connection may cost a retry, never a 500 or an event: every answer is a 2xx,
// a documented 4xx or a 503 to retry with Retry-After, and every live stream on both servers,
// reconnecting with Last-Event-ID whenever it is closed, carries exactly what a replay from 0
// returns, in order and once. Events that cross servers after the cuts show that each server's
// LISTEN connection came back by itself.
//
// The servers run in this process (no chain; the beat on), each writing its log lines here, so
// a failure shows the errors they logged. Bounded: at most WRITES writes, cuts for at most
// CUTS_FOR_MS, every request given up after ANSWER_MS; the cutting stops with the writes.
import { loadConfig, type RunningServer, startServer } from '@presence/server';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from './harness';
import { freshDatabaseEnv } from './test-database';

/** Writes at most, spread over the workers; each retried until it has an answer other than a 503. */
const WRITES = 1_200;
/**
 * How long the cuts go on at most; no write starts after it. On a busy machine the run gets
 * smaller, not longer: reopening connections can then take about as long as the time between
 * two cuts, and requests wait for the cuts to end rather than fail.
 */
const CUTS_FOR_MS = 40_000;
const WORKERS = 8;
/** How often every connection to the database is cut. */
const CUT_EVERY_MS = 300;
/** A write still refused this many times after the cuts ended counts as failed: the database is back. */
const TRIES = 40;
/** A request unanswered this long never will be: longer than the cuts can last, so only a hang reaches it. */
const ANSWER_MS = 60_000;
/** Memory keys an account's writes pick from; the cap below leaves some pins refused (409). */
const KEYS = 12;
const MEMORY_CAP = 8;

type Server = RunningServer & { name: string; logs: string[] };
type Account = { name: string; key: string };
type Frame = { id: number; event: string; data: unknown };

const dirs: string[] = [];
const servers: Server[] = [];
let env: Record<string, string>;
let accounts: Account[] = [];
let database = '';

async function start(name: string): Promise<Server> {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const logs: string[] = [];
  const config = loadConfig({
    ...env,
    PRESENCE_DATA_DIR: dataDir,
    PRESENCE_HOST: '127.0.0.1',
    PRESENCE_PORT: '0',
    PRESENCE_SERVER_ID: name,
    PRESENCE_LOG_LEVEL: 'warn',
  });
  const s = await startServer({ config, chain: false, maintenanceMs: 0, logFormat: 'json', logStream: { write: (l) => logs.push(l) } });
  return Object.assign(s, { name, logs });
}

beforeAll(async () => {
  env = {
    ...(await freshDatabaseEnv()),
    // Neither limit may refuse what this test sends: it looks at faults, not at limits.
    PRESENCE_RATE_LIMIT: '100000/60s',
    PRESENCE_AUTH_FAIL_LIMIT: '100000/60s',
    PRESENCE_MAX_MEMORY_PER_ACCOUNT: String(MEMORY_CAP),
    // Every cut makes each server open all its connections again (a fork and a SCRAM
    // exchange each); the smallest pool keeps that from starving a two-core machine.
    PRESENCE_DATABASE_POOL: '4',
  };
  database = new URL(env.PRESENCE_DATABASE_URL as string).pathname.slice(1);
  const a = await start('s1');
  servers.push(a, await start('s2'));
  const bootstrap = a.bootstrap;
  if (!bootstrap) throw new Error('the first server made no bootstrap keys');
  accounts = [{ name: 'bootstrap', key: bootstrap.live }];
  for (const name of ['acme', 'globex']) accounts.push({ name, key: (await a.core.accounts.create(name)).admin.secret });
}, 60_000);

afterAll(async () => {
  for (const s of servers) await s.close();
  for (const d of dirs) removeDir(d);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A small seeded generator: each worker's writes are the same from run to run. */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** A problem type that tells a client to come back later (503, with Retry-After). */
const isUnavailable = (type: unknown) => type === 'store_unavailable' || type === 'unavailable';

/**
 * A live stream kept open as a client should: whenever the server closes it (or refuses it
 * for a moment with a 503), it reconnects with Last-Event-ID. `troubles` are what a client
 * must never see: a `gap`, an `error` frame that is not a 503's, any other refusal.
 */
function liveStream(server: Server, account: Account, from?: number) {
  const events: Frame[] = [];
  const troubles: string[] = [];
  let start: number | undefined = from;
  let last: number | undefined = from;
  let reconnects = 0;
  let stopped = false;
  const controller = new AbortController();
  let waiters: (() => void)[] = [];
  const changed = () => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  const read = async () => {
    const query = last === undefined ? '' : `?last_event_id=${last}`;
    const res = await fetch(`${server.url}/v1/events${query}`, {
      headers: { authorization: `Bearer ${account.key}` },
      signal: controller.signal,
    });
    if (res.status !== 200) {
      const { type } = JSON.parse(await res.text()) as { type?: string };
      if (!(res.status === 503 && isUnavailable(type) && res.headers.get('retry-after'))) troubles.push(`refused: ${res.status} ${type}`);
      return;
    }
    const decoder = new TextDecoder();
    let buf = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let id: number | undefined;
        let event: string | undefined;
        const lines: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) id = Number(line.slice(4));
          else if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) lines.push(line.slice(6));
        }
        const data = lines.length > 0 ? (JSON.parse(lines.join('\n')) as { type?: unknown }) : null;
        if (event === undefined) {
          // An id-only frame: where a live-only stream starts.
          if (id !== undefined) {
            start ??= id;
            last = id;
          }
        } else if (id !== undefined) {
          events.push({ id, event, data });
          last = id;
        } else if (!(event === 'error' && isUnavailable(data?.type))) troubles.push(`${event} frame: ${JSON.stringify(data)}`);
      }
      changed();
    }
  };
  const done = (async () => {
    while (!stopped) {
      try {
        await read();
      } catch (e) {
        if (stopped) break;
        // A connection reset mid-stream is a close like any other; anything else is worth reading.
        if (!(e instanceof TypeError)) troubles.push(`read failed: ${String(e)}`);
      }
      if (stopped) break;
      reconnects++;
      await sleep(100);
    }
  })();
  return {
    server: server.name,
    account: account.name,
    events,
    troubles,
    get start() {
      return start;
    },
    get last() {
      return last;
    },
    get reconnects() {
      return reconnects;
    },
    /** Resolves true once `pred` holds, false if it still does not after `ms`. */
    async until(pred: () => boolean, ms: number): Promise<boolean> {
      const by = Date.now() + ms;
      while (!pred()) {
        const left = by - Date.now();
        if (left <= 0) return false;
        await Promise.race([new Promise<void>((r) => waiters.push(r)), sleep(Math.min(left, 200))]);
      }
      return true;
    },
    async stop() {
      stopped = true;
      controller.abort();
      await done;
    },
  };
}
type LiveStream = ReturnType<typeof liveStream>;

type Op =
  | { kind: 'pin' | 'repin'; key: string; note: string }
  | { kind: 'delete'; key: string }
  | { kind: 'invalid' }
  | { kind: 'bad-key' };

/** The answers each write may have besides a 503 to retry (docs/api.md): status and problem type. */
const expected: Record<Op['kind'], [number, string | null][]> = {
  pin: [
    [200, null],
    [409, 'conflict'], // the account's memory is full (limit memory_per_account)
  ],
  repin: [
    [200, null],
    [409, 'conflict'],
  ],
  delete: [
    [200, null],
    [404, 'not_found'],
  ],
  invalid: [[400, 'invalid_request']],
  'bad-key': [[401, 'auth']],
};

type Answered = { status: number; type: string | null; detail?: string; retryAfter: string | null; requestId: string | null };

async function send(server: Server, account: Account, op: Op, idempotencyKey: string): Promise<Answered> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${op.kind === 'bad-key' ? `${account.key.slice(0, -4)}zzzz` : account.key}`,
    'idempotency-key': idempotencyKey,
  };
  // An answer that never comes is a failure of its own, not a test that hangs.
  const signal = AbortSignal.timeout(ANSWER_MS);
  const res =
    op.kind === 'delete'
      ? await fetch(`${server.url}/v1/memory/${op.key}`, { method: 'DELETE', headers, signal })
      : await fetch(`${server.url}/v1/memory/pin`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(op.kind === 'pin' || op.kind === 'repin' ? { key: op.key, note: op.note } : { key: 'not a memory key' }),
          signal,
        });
  const text = await res.text();
  let type: string | null = null;
  let detail: string | undefined;
  if (res.status >= 400) {
    try {
      const problem = JSON.parse(text) as { type?: string; detail?: string };
      type = problem.type ?? `untyped: ${text.slice(0, 120)}`;
      detail = problem.detail;
    } catch {
      type = `not JSON: ${text.slice(0, 80)}`;
    }
  }
  return { status: res.status, type, detail, retryAfter: res.headers.get('retry-after'), requestId: res.headers.get('x-request-id') };
}

/** Answers that say "again later": a 503 (the database away), or the first attempt of the key still running. */
const retryable = (a: Answered) =>
  (a.status === 503 && isUnavailable(a.type)) || (a.status === 409 && a.type === 'idempotency_in_progress');

/** The error lines a server logged: the causes behind a wrong answer or a broken stream. */
const errorLines = (s: Server) =>
  s.logs
    .filter((l) => {
      const level = (JSON.parse(l) as { level?: number }).level ?? 0;
      return level >= 50;
    })
    .map((l) => `${s.name}: ${l.trim()}`);

describe('two servers over one PostgreSQL whose connections are cut every 300 ms', () => {
  it('answers nothing 500, and every live stream on both servers carries exactly what a replay from 0 returns', async () => {
    const [one, two] = servers as [Server, Server];
    // Live streams first, on both servers for every account: each must know where it starts.
    const streams: LiveStream[] = [];
    for (const s of servers) for (const a of accounts) streams.push(liveStream(s, a));
    for (const st of streams) expect(await st.until(() => st.start !== undefined, 10_000)).toBe(true);

    const cutter = postgres(env.PRESENCE_DATABASE_URL as string, { max: 1, onnotice: () => undefined });
    let cutting = true;
    let cuts = 0;
    let listenCuts = 0;
    const cutsEnd = Date.now() + CUTS_FOR_MS;
    const cutLoop = (async () => {
      while (cutting && Date.now() < cutsEnd) {
        await sleep(CUT_EVERY_MS);
        if (!cutting) break;
        const rows = await cutter<{ cut: boolean; listening: boolean }[]>`
          SELECT pg_terminate_backend(pid) AS cut, query ILIKE 'listen%' AS listening
          FROM pg_stat_activity WHERE datname = ${database} AND pid <> pg_backend_pid()`;
        cuts += rows.filter((r) => r.cut).length;
        listenCuts += rows.filter((r) => r.cut && r.listening).length;
      }
      cutting = false;
    })();

    const wrong: string[] = [];
    let retries = 0;
    let done = 0;
    const worker = async (w: number) => {
      const random = rng(0x5eed + w);
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
      const last: { pin: { key: string; note: string } | null } = { pin: null };
      for (let i = w; i < WRITES && cutting; i += WORKERS) {
        const server = pick(servers);
        const account = pick(accounts);
        const r = random();
        const key = `topic:k${Math.floor(random() * KEYS)}`;
        const op: Op =
          r < 0.4
            ? { kind: 'pin', key, note: pick(['first', 'second']) }
            : r < 0.55 && last.pin
              ? { kind: 'repin', ...last.pin }
              : r < 0.85
                ? { kind: 'delete', key }
                : r < 0.95
                  ? { kind: 'invalid' }
                  : { kind: 'bad-key' };
        if (op.kind === 'pin') last.pin = { key: op.key, note: op.note };
        // One key per write, kept across its retries: a retry never does the work twice.
        const idempotencyKey = `w${w}-op${i}`;
        for (let refusedSinceCuts = 0; ; ) {
          let a: Answered;
          try {
            a = await send(server, account, op, idempotencyKey);
          } catch (e) {
            wrong.push(`${op.kind} on ${server.name}: no answer (${String(e)})`);
            break;
          }
          if (retryable(a)) {
            if (a.retryAfter === null) wrong.push(`${op.kind} on ${server.name}: ${a.status} ${a.type} without Retry-After`);
            if (!cutting && ++refusedSinceCuts >= TRIES) {
              wrong.push(`${op.kind} on ${server.name}: still ${a.status} ${a.type} ${TRIES} tries after the cuts ended`);
              break;
            }
            retries++;
            // Retry-After, honoured briefly: the next cut comes within 300 ms anyway.
            await sleep(Math.min(Number(a.retryAfter ?? 1) * 1000, 250));
            continue;
          }
          const ok = expected[op.kind].some(([status, type]) => status === a.status && (type === null || type === a.type));
          if (!ok) wrong.push(`${op.kind} on ${server.name}: ${a.status} ${a.type} (${a.detail}; request ${a.requestId})`);
          break;
        }
        done++;
      }
    };
    try {
      await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    } finally {
      // The writes are done (or the cuts' time is over and the last ones finished without them).
      cutting = false;
      await cutLoop;
      await cutter.end();
    }
    // The test did what it says: connections were cut, the listening ones among them, and the cuts cost retries.
    expect(done).toBeGreaterThan(0);
    expect(cuts).toBeGreaterThan(0);
    expect(listenCuts).toBeGreaterThan(0);
    expect(retries).toBeGreaterThan(0);

    // After the cuts, each account changes once on each server: a stream on the other server
    // hears of it only through its LISTEN connection, which must have come back by itself.
    for (const s of [one, two]) {
      for (const a of accounts) {
        const note = `after the cuts on ${s.name}`;
        let answered: Answered | null = null;
        for (let attempt = 0; attempt < TRIES && (answered === null || retryable(answered)); attempt++) {
          if (answered) await sleep(250);
          const listing = await fetch(`${s.url}/v1/memory`, { headers: { authorization: `Bearer ${a.key}` } });
          const pinned = listing.ok ? ((await listing.json()) as { pinned: { key: string }[] }).pinned : [];
          // A stored key with a new note: an event whatever the cap.
          const key = pinned[0]?.key ?? `topic:after-${s.name}`;
          answered = await send(s, a, { kind: 'pin', key, note }, `after-${s.name}-${a.name}`);
        }
        expect([a.name, s.name, answered?.status]).toEqual([a.name, s.name, 200]);
      }
    }

    // Where each account's log ends now, and what a replay from 0 returns, read on the first server.
    const ends = new Map<string, number>();
    const replays = new Map<string, Frame[]>();
    for (const a of accounts) {
      const probe = liveStream(one, a);
      expect(await probe.until(() => probe.start !== undefined, 10_000)).toBe(true);
      await probe.stop();
      const end = probe.start as number;
      ends.set(a.name, end);
      const replay = liveStream(one, a, 0);
      expect(await replay.until(() => (replay.last ?? 0) >= end, 20_000)).toBe(true);
      await replay.stop();
      expect(replay.troubles).toEqual([]);
      const ids = replay.events.map((e) => e.id);
      // The log itself: strictly increasing ids, ending where the probe said.
      expect(ids.every((id, i) => i === 0 || id > (ids[i - 1] as number))).toBe(true);
      expect(ids.at(-1)).toBe(end);
      replays.set(a.name, replay.events);
    }

    // Every live stream catches up (a bounded wait, not a speed claim), then is compared.
    const reports: string[] = [];
    for (const st of streams) {
      const end = ends.get(st.account) as number;
      const caughtUp = await st.until(() => (st.last ?? 0) >= end, 15_000);
      await st.stop();
      const want = (replays.get(st.account) as Frame[]).filter((e) => e.id > (st.start as number));
      const got = st.events;
      const byId = new Map(want.map((e) => [e.id, e]));
      const seen = new Set<number>();
      const duplicated = got.filter((e) => seen.has(e.id) || !seen.add(e.id));
      const missing = want.filter((e) => !seen.has(e.id));
      const unknown = got.filter((e) => !byId.has(e.id));
      // Same id, other content: an event that was streamed and then rolled back, its id reused.
      const altered = got.filter((e) => byId.has(e.id) && JSON.stringify(byId.get(e.id)) !== JSON.stringify(e));
      const disordered = got.filter((e, i) => i > 0 && e.id <= (got[i - 1] as Frame).id);
      const what = `${st.account} on ${st.server} (from ${st.start}, ${got.length} events, ${st.reconnects} reconnects)`;
      if (!caughtUp) reports.push(`${what}: stopped at ${st.last}, the log ends at ${end}`);
      for (const [name, frames] of Object.entries({ missing, duplicated, unknown, altered, disordered })) {
        if (frames.length === 0) continue;
        const ids = frames.map((e) => e.id);
        reports.push(`${what}: ${name} ${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ` (${ids.length} in all)` : ''}`);
      }
      const [first] = altered;
      if (first) reports.push(`${what}: streamed ${JSON.stringify(first)}, the log holds ${JSON.stringify(byId.get(first.id))}`);
      for (const t of st.troubles) reports.push(`${what}: ${t}`);
      if (reports.length === 0) expect(got).toEqual(want);
    }

    // The servers' error lines are shown only beside a failure they may explain.
    const logged = wrong.length + reports.length > 0 ? servers.flatMap(errorLines).slice(0, 20) : [];
    expect({ wrong, reports, logged }).toEqual({ wrong: [], reports: [], logged: [] });
    expect(streams.every((st) => st.events.length > 0)).toBe(true);
  }, 240_000);
});
