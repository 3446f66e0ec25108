// Many servers, one deployment (issue 17, the operations half): three real `presence-server`
// processes on one PostgreSQL database and one shared devnet (`presence-server devnet`). A
// write on one is read on another; nonces and the one-finisher rule hold across servers; the
// background work runs on one elected leader and moves to another when it is killed; a
// server killed mid-burst loses nothing it answered; `accounts create` works beside them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, type ClusterServer, startCluster } from './cluster';
import { call } from './harness';
import { freshDatabaseEnv } from './test-database';
import { OPEN_POLICY } from './wallet-helpers';

type Hex = `0x${string}`;

let c: Cluster;
beforeAll(async () => {
  c = await startCluster({ database: (await freshDatabaseEnv()) as never, servers: 3 });
}, 180_000);
afterAll(async () => {
  await c?.stop();
}, 60_000);

async function rpc<T>(method: string, params: unknown[]): Promise<T> {
  const r = await fetch(c.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await r.json()) as { result: T }).result;
}
const nonceOf = async (address: Hex) => Number(await rpc<string>('eth_getTransactionCount', [address, 'latest']));

/** A fresh account made on `s` (its wallet funded on the shared devnet) with an open policy. */
async function account(s: ClusterServer, name: string, policy: Partial<typeof OPEN_POLICY> = {}) {
  const key = c.createAccount(name);
  const w = await call(s.url, 'GET', '/v1/wallet', { key });
  expect(w.status, w.text).toBe(200);
  const p = await call(s.url, 'PUT', '/v1/wallet/policy', { key, body: { ...OPEN_POLICY, ...policy } });
  expect(p.status, p.text).toBe(200);
  return { key, address: w.json.address as Hex };
}

/** The account's `confirm` events for one confirmation, read from the events table itself. */
async function confirmEvents(key: string, confirmId: string) {
  const me = await call(c.servers.find((s) => s.alive())?.url as string, 'GET', '/v1/presence/me', { key });
  expect(me.status, me.text).toBe(200);
  const rows = await c.sql<{ data: { confirm_id?: string; status?: string } }[]>`
    SELECT data FROM events WHERE type = 'confirm' ORDER BY account_id, id`;
  return rows.map((r) => r.data).filter((d) => d.confirm_id === confirmId);
}

/** Polls `check` until it answers something other than undefined (a positive signal, not a sleep). */
async function until<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const by = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > by) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('three servers, one database, one devnet', () => {
  it('each names itself on /v1/health; exactly one leads; all trade on the one recorded deployment', async () => {
    const health = await Promise.all(c.servers.map((s) => call(s.url, 'GET', '/v1/health')));
    expect(health.map((h) => h.json.server.id)).toEqual(['s1', 's2', 's3']);
    expect(health.filter((h) => h.json.server.leader)).toHaveLength(1);
    // /metrics says the same, so an alert can see a deployment with no leader.
    const leading = await Promise.all(
      c.servers.map(async (s) => /^presence_leader\{[^}]*\} (\d)$/m.exec((await call(s.url, 'GET', '/metrics')).text)?.[1]),
    );
    expect(leading.map(Number).sort()).toEqual([0, 0, 1]);
    // And their logs, one line each: the leader as it took the lead, each follower at its start.
    const said = c.servers.map((s) => s.stdout());
    expect(said.map((out) => (out.match(/leads the background work/g) ?? []).length).sort()).toEqual([0, 0, 1]);
    expect(said.map((out) => (out.match(/follower of the background work/g) ?? []).length).sort()).toEqual([0, 1, 1]);
    expect(new Set(health.map((h) => h.json.chain?.id))).toEqual(new Set([31337]));
    const recorded = await c.sql`SELECT rpc_url FROM devnet_deployments`;
    expect(recorded.map((r) => r.rpc_url)).toEqual([c.rpcUrl]);
    const tokens = await Promise.all(c.servers.map((s) => call(s.url, 'GET', '/v1/chain/tokens', { key: c.live })));
    for (const t of tokens) expect(t.json).toEqual(tokens[0]?.json);
  });

  it('a write on A is read on B and C at once', async () => {
    const [a, b, cc] = c.servers as [ClusterServer, ClusterServer, ClusterServer];
    const pinned = await call(a.url, 'POST', '/v1/memory/pin', { key: c.live, body: { key: 'topic:cluster', note: 'written on A' } });
    expect(pinned.status, pinned.text).toBe(200);
    for (const s of [b, cc]) {
      const r = await call(s.url, 'GET', '/v1/memory', { key: c.live });
      expect(JSON.stringify(r.json)).toContain('written on A');
    }
  });

  it('30 concurrent intents spread over 3 servers get 30 consecutive nonces; nothing is signed twice', async () => {
    const who = await account(c.servers[0] as ClusterServer, 'burst-cluster');
    const first = await nonceOf(who.address);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call((c.servers[i % 3] as ClusterServer).url, 'POST', '/v1/wallet/intent', {
          key: who.key,
          body: { do: `wrap 0.0000${String(i + 10)} ETH` },
        }),
      ),
    );
    for (const a of answers) expect(a.status, a.text).toBe(200);
    const hashes = answers.map((a) => a.json.tx as Hex);
    expect(new Set(hashes).size).toBe(30);
    const txs = await Promise.all(
      hashes.map((h) => rpc<{ nonce: string; from: string; blockNumber: string | null }>('eth_getTransactionByHash', [h])),
    );
    const nonces = txs.map((t) => Number(t.nonce)).sort((x, y) => x - y);
    expect(nonces).toEqual(Array.from({ length: 30 }, (_, i) => first + i));
    for (const t of txs) expect(t.from.toLowerCase()).toBe(who.address.toLowerCase());
    // Nothing else was sent from the wallet: no second signature of any step landed.
    expect(await nonceOf(who.address)).toBe(first + 30);
  });

  it('one hold approved on every server at once (twice each) executes once: one transaction, one confirm event', async () => {
    const a = c.servers[0] as ClusterServer;
    const who = await account(a, 'approve-twice', { confirm_over: '1 USD' });
    const first = await nonceOf(who.address);
    const held = await call(a.url, 'POST', '/v1/wallet/intent', { key: who.key, body: { do: 'wrap 0.01 ETH' } });
    expect(held.status, held.text).toBe(202);
    const id = held.json.confirm_id as string;
    // Several drives of one intent on different servers at once: the losers of the approval
    // resume the winner's intent, which is what the cluster-wide signing rule is about.
    const answers = await Promise.all(
      [...c.servers, ...c.servers].map((s) => call(s.url, 'POST', `/v1/confirm/${id}`, { key: who.key, body: { approve: true } })),
    );
    for (const r of answers) {
      expect(r.status, r.text).toBe(200);
      expect(r.json).toMatchObject({ status: 'executed', tx: answers[0]?.json.tx });
    }
    expect(await nonceOf(who.address)).toBe(first + 1);
    const events = await confirmEvents(who.key, id);
    expect(events.map((e) => e.status)).toEqual(['executed']);
  });

  it('accounts create works while the servers run; its key works on every server at once', async () => {
    const r = c.cli(['accounts', 'create', 'made-beside']);
    expect(r.status, r.stderr).toBe(0);
    const key = /^admin key (\S+)$/m.exec(r.stdout)?.[1] as string;
    for (const s of c.servers) {
      const me = await call(s.url, 'GET', '/v1/presence/me', { key });
      expect(me.status, me.text).toBe(200);
    }
  });

  it('a standing intent made on a follower whose trigger already holds fires once, on the leader, with no new block', async () => {
    const leader = await c.leader();
    const follower = c.servers.find((s) => s.alive() && s !== leader) as ClusterServer;
    const block = await rpc<string>('eth_blockNumber', []);
    const said = await call(follower.url, 'POST', '/v1/messages', { key: c.live, body: { text: 'tell me when WETH is above 1 USD' } });
    expect(said.status, said.text).toBe(200);
    const id = /\((st_\w+)\)/.exec(said.json.reply)?.[1] as string;
    const fired = await until(
      async () => {
        const list = await call(follower.url, 'GET', '/v1/standing', { key: c.live });
        const r = list.json.standing.find((x: { id: string }) => x.id === id);
        return r?.fired_count > 0 ? r : undefined;
      },
      10_000,
      'the standing intent to fire',
    );
    expect(fired.fired_count).toBe(1);
    // The leader learnt of it from the store: its own beats never saw it created.
    expect(await rpc<string>('eth_blockNumber', [])).toBe(block);
    // The fire is counted before its words are written: wait for the words, then check there is one.
    const spoken = await until(
      async () => {
        const rows = await c.sql`SELECT id FROM thread WHERE entry->>'cause' = ${`standing:${id}`}`;
        return rows.length > 0 ? rows : undefined;
      },
      10_000,
      'the fire to be spoken in the thread',
    );
    expect(spoken).toHaveLength(1);
    expect((await call(leader.url, 'DELETE', `/v1/standing/${id}`, { key: c.live })).status).toBe(200);
  });

  it('kill -9 any server mid-burst: every answered write is kept, the others keep answering', async () => {
    const victim = c.servers.find((s) => s.alive() && s.id !== 's1') as ClusterServer;
    const others = c.servers.filter((s) => s.alive() && s !== victim);
    const answered: string[] = [];
    let failedOnVictim = 0;
    // Killed while the burst is in flight: the moment the victim's first answer comes back.
    let killed: Promise<void> | null = null;
    const burst = Array.from({ length: 60 }, async (_, i) => {
      const s = i % 3 === 0 ? victim : (others[i % others.length] as ClusterServer);
      const note = `burst ${i}`;
      try {
        const r = await call(s.url, 'POST', '/v1/memory/pin', { key: c.live, body: { key: `topic:burst-${i}`, note } });
        if (r.status === 200) answered.push(`topic:burst-${i}`);
        else if (s !== victim) throw new Error(`${s.id} answered ${r.status}: ${r.text}`);
        if (s === victim) killed ??= victim.kill();
      } catch (e) {
        if (s !== victim) throw e;
        failedOnVictim++;
      }
    });
    await Promise.all(burst);
    await killed;
    expect(victim.alive()).toBe(false);
    // It did land mid-burst: the victim had answered, and some of its requests were cut off.
    expect(failedOnVictim).toBeGreaterThan(0);
    expect(answered.length).toBeGreaterThanOrEqual(40);
    for (const s of others) {
      const mem = JSON.stringify((await call(s.url, 'GET', '/v1/memory', { key: c.live })).json);
      for (const k of answered) expect(mem).toContain(k);
    }
    expect(failedOnVictim + answered.length).toBe(60);
  });

  it('kill -9 the leader while a 10 s hold is pending: another server expires it once, and approving it then is 409 confirm_expired', async () => {
    const alive = c.servers.filter((s) => s.alive());
    const leader = await c.leader();
    const other = alive.find((s) => s !== leader) as ClusterServer;
    const who = await account(other, 'failover', { confirm_over: '1 USD', confirm_timeout_s: 10 });
    const held = await call(other.url, 'POST', '/v1/wallet/intent', { key: who.key, body: { do: 'wrap 0.01 ETH' } });
    expect(held.status, held.text).toBe(202);
    const id = held.json.confirm_id as string;
    await leader.kill();
    const next = await c.leader();
    expect(next).not.toBe(leader);
    const expired = await until(
      async () => {
        const events = await confirmEvents(who.key, id);
        return events.length > 0 ? events : undefined;
      },
      25_000,
      'the hold to expire',
    );
    expect(expired.map((e) => e.status)).toEqual(['expired']);
    const approve = await call(other.url, 'POST', `/v1/confirm/${id}`, { key: who.key, body: { approve: true } });
    expect(approve.status, approve.text).toBe(409);
    expect(approve.json.type).toMatch(/confirm_expired$/);
    expect((await confirmEvents(who.key, id)).map((e) => e.status)).toEqual(['expired']);
  });

  it('a graceful shutdown of the leader hands leadership over: the other server leads (its health says so)', async () => {
    await c.addServer();
    const leader = await c.leader();
    const other = c.servers.find((s) => s.alive() && s !== leader) as ClusterServer;
    expect(await leader.stop()).toBe(0);
    const next = await c.leader();
    expect(next).toBe(other);
    expect((await call(other.url, 'GET', '/v1/health')).json.server).toEqual({ id: other.id, leader: true });
  });
});
