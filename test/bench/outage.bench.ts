// Answers while the chain RPC is down (moved here from test/src/wallet-chain.test.ts, which now
// checks what is answered, not how soon). A server in this process, its chain pointed at:
// - a port where nothing listens: chain calls are 503 chain_unavailable at once (a refusal is
//   not waited out);
// - a "blackhole" that accepts connections and never answers: GET /v1/health reports the
//   chain as null after its 1 s wait for the head, not after the chain's timeout (5 s per
//   request, retried once), and a chain call ends as a 503 within the chain's deadline.
import { createRequire } from 'node:module';
import { createServer, type Socket } from 'node:net';
import path from 'node:path';
import { call, removeDir, startTestServer } from '../src/harness';
import { fmt, percentile, type Row } from './stats';

const require = createRequire(import.meta.url);
const baseList = path.join(path.dirname(require.resolve('@presence/core/package.json')), 'src/chain/lists/base-mainnet.json');
const ROUNDS = 5;

const startAgainst = (rpcUrl: string) =>
  startTestServer({ chain: true, env: { PRESENCE_CHAIN: 'base', PRESENCE_RPC_URL: rpcUrl, PRESENCE_TOKEN_LIST: baseList } });

async function timed(f: () => Promise<{ status: number }>, expected: number) {
  const t0 = performance.now();
  const r = await f();
  const ms = performance.now() - t0;
  if (r.status !== expected) throw new Error(`answered ${r.status}, expected ${expected}`);
  return ms;
}

export async function outageBenchmarks(rows: Row[]) {
  const refused = await startAgainst('http://127.0.0.1:1');
  try {
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) times.push(await timed(() => call(refused.url, 'GET', '/v1/chain/pools', { key: refused.live }), 503));
    rows.push({
      benchmark: 'RPC refusing: GET /v1/chain/pools 503, max ms',
      figure: fmt(Math.max(...times), 0),
      target: '< 2000 (at once)',
    });
  } finally {
    await refused.close();
    removeDir(refused.dataDir);
  }

  const sockets = new Set<Socket>();
  const blackhole = createServer((sock) => {
    sockets.add(sock);
    sock.on('error', () => undefined);
  });
  await new Promise<void>((r) => blackhole.listen(0, '127.0.0.1', r));
  const s = await startAgainst(`http://127.0.0.1:${(blackhole.address() as { port: number }).port}`);
  try {
    const health: number[] = [];
    for (let i = 0; i < ROUNDS; i++) health.push(await timed(() => call(s.url, 'GET', '/v1/health'), 200));
    rows.push({
      benchmark: 'RPC silent: GET /v1/health (chain null) median ms',
      figure: fmt(percentile(health, 50), 0),
      target: '≈ 1000, < 2500',
    });
    const pools = await timed(() => call(s.url, 'GET', '/v1/chain/pools', { key: s.live }), 503);
    rows.push({ benchmark: 'RPC silent: GET /v1/chain/pools 503 ms', figure: fmt(pools, 0), target: '< 25000 (the chain deadline)' });
  } finally {
    await s.close();
    removeDir(s.dataDir);
    for (const sock of sockets) sock.destroy();
    blackhole.close();
  }
}
