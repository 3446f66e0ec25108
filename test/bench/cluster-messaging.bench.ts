// Cluster messaging (issue 17): servers on one PostgreSQL database, each a process of its
// own. Cross-server event latency: a pin on A until its event arrives on a stream on B
// (sequential, one at a time). Fan-out: one event on A to 1,000 streams spread over A, B and
// C. PostgreSQL runs with fsync on, like the store benchmark.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from '@presence/core/postgres';
import { startPostgres } from '../../scripts/postgres';
import { fmt, percentile, type Row } from './stats';

const here = path.dirname(fileURLToPath(import.meta.url));
// Not the test harness: it registers vitest hooks, and this runs outside vitest.
const tempDir = () => mkdtempSync(path.join(tmpdir(), 'bench-cluster-'));
const removeDir = (dir: string) => rmSync(dir, { recursive: true, force: true });
const pin = (base: string, key: string, topic: string) =>
  fetch(`${base}/v1/memory/pin`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ key: topic }),
  }).then(async (r) => {
    await r.text();
    if (r.status !== 200) throw new Error(`pin answered ${r.status}`);
  });

type Server = { url: string; dataDir: string; stop(): Promise<void> };

function startClusterServer(env: Record<string, string>): Promise<Server> {
  const dataDir = tempDir();
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'cluster-server.ts')], {
    env: { ...process.env, PRESENCE_LOG_LEVEL: 'silent', PRESENCE_PORT: '0', PRESENCE_DATA_DIR: dataDir, ...env },
  });
  let err = '';
  proc.stderr.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<void>((r) => proc.on('exit', () => r()));
  return new Promise((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => reject(new Error(`cluster server did not start: ${err}`)), 60_000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /Presence listening on (\S+)/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve({
          url: m[1] as string,
          dataDir,
          async stop() {
            proc.kill('SIGTERM');
            await exited;
            removeDir(dataDir);
          },
        });
      }
    });
  });
}

/** Opens `n` event streams on `base`; `onData` sees each chunk with the stream's index. */
function openStreams(base: string, key: string, n: number, onData: (chunk: string) => void) {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const reqs: http.ClientRequest[] = [];
  let opened = 0;
  const ready = new Promise<void>((resolveAll) => {
    for (let s = 0; s < n; s++) {
      const req = http.get(new URL('/v1/events', base), { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
        res.setEncoding('utf8');
        let first = true;
        res.on('data', (d: string) => {
          // The first chunk is the stream's starting cursor: it is open and listening.
          if (first) {
            first = false;
            opened++;
            if (opened === n) resolveAll();
          }
          onData(d);
        });
      });
      req.on('error', () => undefined);
      reqs.push(req);
    }
  });
  return {
    ready,
    close: () => {
      for (const r of reqs) r.destroy();
    },
  };
}

export async function clusterMessagingBenchmarks(rows: Row[], servers = 3, streams = 1000) {
  const pg = await startPostgres({ fsync: true });
  const started: Server[] = [];
  try {
    const url = await pg.createDatabase();
    await migrate(url);
    const caps = { PRESENCE_MAX_STREAMS_PER_KEY: String(streams), PRESENCE_MAX_STREAMS_PER_ACCOUNT: String(streams) };
    const env = {
      PRESENCE_DATABASE_URL: url,
      PRESENCE_MASTER_KEY: randomBytes(32).toString('hex'),
      PRESENCE_RATE_LIMIT: '100000000/1s',
      PRESENCE_MAX_STREAMS: String(streams),
      ...caps,
    };
    const first = await startClusterServer(env);
    started.push(first);
    for (let i = 1; i < servers; i++) started.push(await startClusterServer(env));
    const { live } = JSON.parse(readFileSync(path.join(first.dataDir, 'bootstrap-keys.json'), 'utf8'));
    const [a, b] = started as [Server, Server];

    // Latency: one stream on B, pins on A one at a time.
    let waiting: { target: string; resolve: () => void } | null = null;
    const one = openStreams(b.url, live, 1, (d) => {
      if (waiting && d.includes(waiting.target)) waiting.resolve();
    });
    await one.ready;
    const latencies: number[] = [];
    for (let i = 0; i < 200; i++) {
      const target = `topic:lat${i}`;
      const arrived = new Promise<void>((resolve) => {
        waiting = { target, resolve };
      });
      const t0 = performance.now();
      await pin(a.url, live, target);
      await arrived;
      latencies.push(performance.now() - t0);
    }
    one.close();
    rows.push({
      benchmark: `cross-server event (pin on A → stream on B), ${servers} servers, PostgreSQL: p50 ms`,
      figure: fmt(percentile(latencies, 50)),
      target: '',
    });
    rows.push({ benchmark: 'cross-server event: p99 ms', figure: fmt(percentile(latencies, 99)), target: '< 250' });

    // Fan-out: `streams` spread over every server, one pin on A.
    const arrivals: number[] = [];
    let target = '';
    const groups = started.map((s, i) =>
      openStreams(s.url, live, Math.floor(streams / servers) + (i < streams % servers ? 1 : 0), (d) => {
        if (target && d.includes(target)) arrivals.push(performance.now());
      }),
    );
    await Promise.all(groups.map((g) => g.ready));
    const rounds: number[][] = [];
    for (let round = 0; round < 5; round++) {
      arrivals.length = 0;
      target = `topic:fan${round}`;
      const t0 = performance.now();
      await pin(a.url, live, target);
      while (arrivals.length < streams && performance.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 2));
      rounds.push(arrivals.map((t) => t - t0));
    }
    for (const g of groups) g.close();
    const all = rounds.flat();
    const label = `1 event to ${streams} streams over ${servers} servers`;
    rows.push({ benchmark: `${label}: delivered`, figure: `${all.length}/${streams * 5}`, target: 'all' });
    rows.push({ benchmark: `${label}: p50 ms`, figure: fmt(percentile(all, 50)), target: '' });
    rows.push({ benchmark: `${label}: p99 ms`, figure: fmt(percentile(all, 99)), target: '< 250' });
  } finally {
    for (const s of started) await s.stop();
    await pg.stop();
  }
}
