// Cost follows work, not accounts (issue 20): one real server (child process, embedded devnet,
// default logging) over an empty deployment and over 100,000 accounts holding 1,000,000
// events, on each store. Per store and size: how long the start takes (spawn → ready line),
// its RSS once settled, and the CPU the idle server (and PostgreSQL) spend in 20 s, in which
// the beat runs every second (upkeep, once a minute, is counted by core's background-cost
// test: the same store questions whatever the number of accounts).
//
// Seeding writes rows and files the way the store writes them (INSERT … SELECT on
// PostgreSQL; the per-account files and the shared logs on lowdb), so 100,000 accounts take
// seconds, not the hours of 100,000 requests.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { startPostgres, type ThrowawayPostgres } from '../../scripts/postgres';
import { removeDir, tempDir } from '../src/harness';
import { type Child, spawnServer } from '../src/process';
import { fmt, percentile, type Row } from './stats';

const ACCOUNTS = 100_000;
const EVENTS_PER_ACCOUNT = 10;
const IDLE_S = 20;
const IDLE_WINDOWS = 3;
const MASTER_KEY = 'ab'.repeat(32);

/** utime + stime of a process, in seconds (fields 14 and 15 of /proc/<pid>/stat). */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** The postmaster listening on `port` and its children (the backends). */
function postgresPids(port: string): number[] {
  const procs = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
  const cmd = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      return [];
    }
  };
  const ppid = (pid: number) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return -1;
    }
  };
  const master = procs.find((pid) => {
    const c = cmd(pid);
    return c.some((a) => a.endsWith('postgres')) && c.includes('-p') && c[c.indexOf('-p') + 1] === port;
  });
  return master === undefined ? [] : [master, ...procs.filter((p) => ppid(p) === master)];
}

type Deployment = { env: Record<string, string>; seed(n: number): Promise<void>; postgresCpu(): number; done(): Promise<void> };

function lowdbDeployment(): Deployment {
  const dataDir = tempDir('bench-scale-');
  return {
    env: { PRESENCE_DATA_DIR: dataDir },
    async seed(n) {
      const data = path.join(dataDir, 'data');
      const now = Date.now();
      const index: string[] = [];
      const agenda: string[] = [];
      const lookups: string[] = [];
      for (let i = 0; i < n; i++) {
        const id = `acct${i}`;
        const created_at = new Date(now).toISOString();
        index.push(JSON.stringify({ id, name: id, created_at }));
        const account = { id, name: id, created_at, presence: { name: 'Presence', model: 'local', preferences: {} }, policy: null };
        writeFileSync(path.join(data, 'accounts', `${id}.json`), JSON.stringify({ account }), { mode: 0o600 });
        const events = Array.from({ length: EVENTS_PER_ACCOUNT }, (_, e) =>
          JSON.stringify({ id: e + 1, type: 'memory', data: { key: 'token:WETH', tier: 'pinned' }, at: now - 1000 + e }),
        );
        writeFileSync(path.join(data, 'events', `${id}.jsonl`), `${events.join('\n')}\n`, { mode: 0o600 });
        agenda.push(JSON.stringify({ t: 'events', a: id, at: now - 1000 }));
        const key = {
          id: `key_${id}`,
          account_id: id,
          kind: 'live',
          name: 'admin',
          scopes: ['admin'],
          secrets: [{ hash: `hash${i}`, last4: 'abcd', valid_until: null }],
          state: 'active',
          created_at,
          last_used_at: null,
          revoked_at: null,
        };
        writeFileSync(path.join(data, 'keys', `${id}.json`), JSON.stringify({ keys: [key] }), { mode: 0o600 });
        lookups.push(JSON.stringify({ t: 'key', h: `hash${i}`, k: key.id, a: id }));
      }
      const append = (file: string, lines: string[]) =>
        writeFileSync(path.join(data, file), `${readFileSync(path.join(data, file), 'utf8')}${lines.map((l) => `${l}\n`).join('')}`);
      append('accounts.jsonl', index);
      append('agenda.jsonl', agenda);
      append('lookups.jsonl', lookups);
    },
    postgresCpu: () => 0,
    async done() {
      removeDir(dataDir);
    },
  };
}

async function postgresDeployment(pg: ThrowawayPostgres): Promise<Deployment> {
  const dataDir = tempDir('bench-scale-pg-');
  const url = await pg.createDatabase();
  const port = new URL(pg.url).port;
  return {
    env: { PRESENCE_DATA_DIR: dataDir, PRESENCE_DATABASE_URL: url, PRESENCE_MASTER_KEY: MASTER_KEY },
    async seed(n) {
      const sql = postgres(url, { max: 1, onnotice: () => undefined });
      const now = Date.now();
      const created = new Date(now).toISOString();
      await sql`INSERT INTO accounts (id, doc) SELECT 'acct' || i, json_build_object('id', 'acct' || i, 'name', 'acct' || i,
        'created_at', ${created}::text, 'presence', json_build_object('name', 'Presence', 'model', 'local', 'preferences', '{}'::json),
        'policy', null) FROM generate_series(0, ${n - 1}::int) i`;
      await sql`INSERT INTO api_keys (id, account_id, secret_hashes, doc) SELECT 'key_acct' || i, 'acct' || i, ARRAY['hash' || i],
        json_build_object('id', 'key_acct' || i, 'account_id', 'acct' || i, 'kind', 'live', 'name', 'admin',
          'scopes', json_build_array('admin'), 'secrets', json_build_array(json_build_object('hash', 'hash' || i, 'last4', 'abcd',
          'valid_until', null)), 'state', 'active', 'created_at', ${created}::text, 'last_used_at', null, 'revoked_at', null)
        FROM generate_series(0, ${n - 1}::int) i`;
      await sql`INSERT INTO events (account_id, id, type, at, data)
        SELECT 'acct' || i, e, 'memory', ${now - 1000}::float8 + e, '{"key":"token:WETH","tier":"pinned"}'::json
        FROM generate_series(0, ${n - 1}::int) i, generate_series(1, ${EVENTS_PER_ACCOUNT}::int) e`;
      await sql`INSERT INTO account_seq (account_id, events) SELECT 'acct' || i, ${EVENTS_PER_ACCOUNT} FROM generate_series(0, ${n - 1}::int) i`;
      // What the seed wrote reaches the disk now, not during the measured start.
      await sql`VACUUM ANALYZE`;
      await sql`CHECKPOINT`;
      await sql.end();
    },
    postgresCpu: () => postgresPids(port).reduce((sum, pid) => sum + cpuSeconds(pid), 0),
    async done() {
      removeDir(dataDir);
    },
  };
}

async function stop(child: Child) {
  child.proc.kill('SIGTERM');
  await child.exited;
}

type Measured = { startMs: number; rssMb: number; serverCpu: number; postgresCpu: number };

/** A first start makes the deployment (default account, devnet); the measured one follows the seed. */
async function measure(make: () => Promise<Deployment>, accounts: number): Promise<Measured> {
  const d = await make();
  try {
    const env = { ...d.env, PRESENCE_LOG_LEVEL: 'info' };
    await stop(await spawnServer(env, { timeoutMs: 120_000 }));
    if (accounts > 1) await d.seed(accounts - 1);
    const t0 = performance.now();
    const child = await spawnServer(env, { timeoutMs: 300_000 });
    const startMs = performance.now() - t0;
    try {
      await sleep(5_000);
      const pid = child.proc.pid as number;
      const rss = rssMb(pid);
      // Three windows, the median of each: an idle server's CPU comes in bursts (a collection,
      // a timer's batch) of up to a few tenths of a second, so one window holds one or not.
      const server: number[] = [];
      const postgresCpu: number[] = [];
      for (let w = 0; w < IDLE_WINDOWS; w++) {
        const [s0, p0] = [cpuSeconds(pid), d.postgresCpu()];
        await sleep(IDLE_S * 1000);
        server.push(cpuSeconds(pid) - s0);
        postgresCpu.push(d.postgresCpu() - p0);
      }
      return { startMs, rssMb: rss, serverCpu: percentile(server, 50), postgresCpu: percentile(postgresCpu, 50) };
    } finally {
      await stop(child);
    }
  } finally {
    await d.done();
  }
}

const PIN_CALLERS = 10;
const PINS = 1_000;
const READS = 2_000;
const STATS_SETTLE_MS = 11_000;

/**
 * Committed transactions of the server's database so far. A backend that has gone idle hands
 * in its counts only after PostgreSQL's idle stats interval (10 s since version 15), so this
 * first waits that long: an earlier read missed most of a run's commits (0.28 a pin that was 1).
 */
async function commits(url: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    await sleep(STATS_SETTLE_MS);
    const [row] = await sql<{ n: string }[]>`SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = current_database()`;
    return Number(row?.n);
  } finally {
    await sql.end();
  }
}

/**
 * What the callers pin: `repeat` pins the ten hot keys with the note they already hold (a pin
 * that changes nothing and writes nothing); `write` gives every pin a new note, so each one
 * writes its entry and its event.
 */
type PinKind = 'repeat' | 'write';

/** A server process to pin against: its URL and its live key. */
type PinTarget = { url: string; live: string };

/** Pins/s over HTTP, 10 callers on 10 hot keys of one account, with `kept` entries already kept. */
async function pinsPerSecond(s: PinTarget, kept: number, kind: PinKind): Promise<number> {
  const pin = async (key: string, note: string) => {
    const res = await fetch(`${s.url}/v1/memory/pin`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key, note }),
    });
    if (res.status !== 200) throw new Error(`pin answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };
  const listed = (await (await fetch(`${s.url}/v1/memory`, { headers: { authorization: `Bearer ${s.live}` } })).json()) as {
    pinned: unknown[];
    fading: unknown[];
  };
  const have = listed.pinned.length + listed.fading.length;
  for (let i = have; i < kept; i++) await pin(`topic:kept${i}`, 'n');
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: PIN_CALLERS }, async () => {
      while (next < PINS) {
        const n = next++;
        await pin(`topic:hot${n % 10}`, kind === 'repeat' ? 'n' : `n${n}`);
      }
    }),
  );
  return PINS / ((performance.now() - t0) / 1000);
}

/** Pins/s over three rounds, the median: single rounds move by a third on this shared machine. */
async function medianPinsPerSecond(s: PinTarget, kept: number, kind: PinKind): Promise<number> {
  const rounds: number[] = [];
  for (let i = 0; i < 3; i++) rounds.push(await pinsPerSecond(s, kept, kind));
  return percentile(rounds, 50);
}

/** Pins/s at 10 and 490 entries, and on PostgreSQL what a pin and an authenticated read commit. */
async function serverPins(rows: Row[], pg: ThrowawayPostgres) {
  const figures: Record<string, Record<PinKind, { few: number; many: number }>> = {};
  for (const name of ['lowdb', 'PostgreSQL']) {
    const url = name === 'PostgreSQL' ? await pg.createDatabase() : '';
    const env: Record<string, string> = { PRESENCE_RATE_LIMIT: '100000000/1s' };
    if (url) Object.assign(env, { PRESENCE_DATABASE_URL: url, PRESENCE_MASTER_KEY: MASTER_KEY });
    // A server process of its own, as in production: in the bench's process the load
    // generator's own promises (fetch is built on them) would pay for what the server's
    // store does process-wide (PostgreSQL's unit of work keeps an AsyncLocalStorage, which
    // makes every promise of the process dearer on Node 20), and be counted as the store's.
    const dataDir = tempDir('bench-pins-');
    const child = await spawnServer(
      { ...env, PRESENCE_PORT: '0', PRESENCE_DATA_DIR: dataDir },
      { discardStdout: true, timeoutMs: 120_000 },
    );
    const s: PinTarget = { url: child.url, live: JSON.parse(readFileSync(path.join(dataDir, 'bootstrap-keys.json'), 'utf8')).live };
    try {
      // Ready, devnet included: a first start deploys the devnet's contracts, whose work would
      // otherwise fall into the first rounds.
      for (;;) {
        const ready = await fetch(`${s.url}/v1/ready`);
        await ready.arrayBuffer();
        if (ready.status === 200) break;
        await sleep(200);
      }
      await sleep(3_000);
      await pinsPerSecond(s, 10, 'write'); // warm-up (JIT, connections), not counted
      await pinsPerSecond(s, 10, 'repeat');
      const few = { repeat: await medianPinsPerSecond(s, 10, 'repeat'), write: await medianPinsPerSecond(s, 10, 'write') };
      if (url) {
        const perPin: Record<PinKind, number> = { repeat: Number.NaN, write: Number.NaN };
        for (const kind of ['repeat', 'write'] as const) {
          const c0 = await commits(url);
          await pinsPerSecond(s, 10, kind);
          perPin[kind] = ((await commits(url)) - c0) / PINS;
        }
        const c1 = await commits(url);
        const r0 = performance.now();
        for (let i = 0; i < READS; i++) {
          const res = await fetch(`${s.url}/v1/presence/me`, { headers: { authorization: `Bearer ${s.live}` } });
          await res.arrayBuffer();
        }
        const readingMs = performance.now() - r0;
        const c2 = await commits(url);
        // What the server commits meanwhile with no request at all (the beat's questions, the
        // rate counts' sync) over as long again: a read's own cost is what goes beyond it.
        await sleep(readingMs);
        const idle = (await commits(url)) - c2;
        rows.push({
          benchmark: 'scale: commits per pin, PostgreSQL (repeated / writing)',
          figure: `${fmt(perPin.repeat, 2)} / ${fmt(perPin.write, 2)}`,
          target: '≤ 1',
        });
        rows.push({
          benchmark: 'scale: commits per authenticated read (GET /v1/presence/me) beyond an idle server’s, PostgreSQL',
          figure: fmt((c2 - c1 - idle) / READS, 2),
          target: '0',
        });
      }
      await pinsPerSecond(s, 490, 'repeat'); // the hot keys back to the note the repeated pins bring
      const many = { repeat: await medianPinsPerSecond(s, 490, 'repeat'), write: await medianPinsPerSecond(s, 490, 'write') };
      figures[name] = { repeat: { few: few.repeat, many: many.repeat }, write: { few: few.write, many: many.write } };
      for (const kind of ['repeat', 'write'] as const) {
        rows.push({
          benchmark: `scale: pins/s over HTTP (${kind === 'repeat' ? 'repeated' : 'writing'}), ${PIN_CALLERS} callers, 10 → 490 entries kept, median of 3, ${name}`,
          figure: `${fmt(few[kind], 0)} → ${fmt(many[kind], 0)}`,
          target: '490 within 20% of 10',
        });
      }
    } finally {
      await stop(child);
      removeDir(dataDir);
    }
  }
  for (const kind of ['repeat', 'write'] as const) {
    const ratio = (figures.PostgreSQL?.[kind].few ?? Number.NaN) / (figures.lowdb?.[kind].few ?? Number.NaN);
    rows.push({
      benchmark: `scale: pins/s PostgreSQL ÷ lowdb (${kind === 'repeat' ? 'repeated' : 'writing'}, 10 entries kept)`,
      figure: fmt(ratio, 2),
      target: '≥ 0.8',
    });
  }
}

export async function scaleBenchmarks(rows: Row[]) {
  const pg = await startPostgres({ fsync: true });
  try {
    const stores: [string, () => Promise<Deployment>][] = [
      ['lowdb', async () => lowdbDeployment()],
      ['PostgreSQL', () => postgresDeployment(pg)],
    ];
    await serverPins(rows, pg);
    // BENCH_SCALE=pins stops here (the 100,000-account deployments take minutes).
    if (process.env.BENCH_SCALE === 'pins') return;
    for (const [name, make] of stores) {
      const one = await measure(make, 1);
      const many = await measure(make, ACCOUNTS);
      const who = name === 'PostgreSQL' ? 'server / PostgreSQL' : 'server';
      const cpu = (m: Measured) => (name === 'PostgreSQL' ? `${fmt(m.serverCpu, 2)} / ${fmt(m.postgresCpu, 2)}` : fmt(m.serverCpu, 2));
      rows.push({
        benchmark: `scale: idle CPU-s per ${IDLE_S} s (median of ${IDLE_WINDOWS}), 1 account, ${who}, ${name}`,
        figure: cpu(one),
        target: '',
      });
      rows.push({
        benchmark: `scale: idle CPU-s per ${IDLE_S} s (median of ${IDLE_WINDOWS}), 100,000 accounts, ${who}, ${name}`,
        figure: cpu(many),
        target: '≤ 2× one account’s',
      });
      rows.push({
        benchmark: `scale: start ms, empty → 100,000 accounts + 1M events, ${name}`,
        figure: `${fmt(one.startMs, 0)} → ${fmt(many.startMs, 0)}`,
        target: 'within 2,000 ms of empty',
      });
      rows.push({
        benchmark: `scale: RSS MB once settled, empty → 100,000 accounts, ${name}`,
        figure: `${fmt(one.rssMb, 0)} → ${fmt(many.rssMb, 0)}`,
        target: '≤ 1.5× empty',
      });
    }
  } finally {
    await pg.stop();
  }
}
