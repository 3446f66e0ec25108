// Conversation over HTTP against the real devnet: every local-planner form answered from
// real chain views, streaming, acting within policy (every action form, its amounts checked
// on the chain), idempotent retries that never act twice, held actions and their resume
// notices, test keys, limits, and turns run one at a time in the order the server got them.
import { chain } from '@presence/core';
import { readableUsd } from '@presence/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, openStream, removeDir, startTestServer, type TestServer } from './harness';
import {
  amountOut,
  anvilsOf,
  balances,
  eventMatching,
  type Hex,
  newAccount,
  OPEN_POLICY,
  portOf,
  putPolicy,
  quotedOf,
  randomAddress,
  rpc,
  tokenOf,
  units,
  until,
} from './wallet-helpers';

let s: TestServer;
/** An amount as the presence writes it for people: "0.00731127987 WETH" → "0.00731128 WETH". */
const readable = (amount: string) => amount.replace(/\d+\.\d+/g, chain.readableDecimal);
const say = (text: string, extra: Record<string, unknown> = {}, key = s.live, idempotencyKey?: string) =>
  call(s.url, 'POST', '/v1/messages', { key, body: { text, ...extra }, idempotencyKey });
const walletNonce = async () => s.core.wallet!.chain.nonceOf(await s.core.wallet!.wallets.address('default'), 'latest');

beforeAll(async () => {
  s = await startTestServer({ chain: true, env: { PRESENCE_RATE_LIMIT: '100000/60s' } });
});
afterAll(async () => {
  await s.close();
  removeDir(s.dataDir);
});

describe('the local planner answers from real chain data', () => {
  it('pool depth matches the pools view', async () => {
    const r = await say('how deep is WETH-USDC');
    const pools = await call(s.url, 'GET', '/v1/chain/pools?pair=WETH-USDC', { key: s.live });
    const pool = pools.json.pools[0];
    expect(r.json.reply).toContain(pool.depth_usd.toLocaleString('en-US'));
    // Reserves as people read them: six significant digits.
    expect(r.json.reply).toContain(readable(pool.reserves.WETH));
    expect(r.json.used).toEqual([{ tool: 'chain.pools', args: { pair: 'WETH-USDC' } }]);
    expect(r.json.memory.touched).toEqual(expect.arrayContaining(['pair:WETH-USDC', 'token:WETH', 'token:USDC']));
    expect(r.json.acted).toBe(false);
  });

  it('a price matches the tokens view', async () => {
    const r = await say("what's WETH worth?");
    const tokens = await call(s.url, 'GET', '/v1/chain/tokens', { key: s.live });
    const weth = tokens.json.tokens.find((t: { symbol: string }) => t.symbol === 'WETH');
    // the view's "3000.00 USD", as a reply writes a USD figure: "3,000.00 USD"
    expect(r.json.reply).toContain(readableUsd(weth.price_usd));
  });

  it('holdings match GET /v1/wallet', async () => {
    const r = await say('what do I hold');
    const w = await call(s.url, 'GET', '/v1/wallet', { key: s.live });
    expect(r.json.reply).toContain(readableUsd(w.json.total_usd));
    for (const b of w.json.balances.filter((x: { amount: string }) => !x.amount.startsWith('0 ')))
      expect(r.json.reply).toContain(readable(b.amount));
  });

  it('token safety reports the measured tax', async () => {
    const scam = await say('is SCAM safe?');
    const view = await call(s.url, 'GET', '/v1/chain/safety?token=SCAM', { key: s.live });
    expect(scam.json.reply).toContain('NOT safe');
    expect(scam.json.reply).toContain(`${(view.json.measured.sell_tax_bps / 100).toFixed(2)}%`);
    expect((await say('is USDC safe')).json.reply).toContain('looks safe');
  });

  it('small talk and the unknown get a friendly answer without tools', async () => {
    const hi = await say('hello there');
    expect(hi.json.reply).toMatch(/^Hi! I'm Presence/);
    expect(hi.json.used).toEqual([]);
    expect((await say('qwerty uiop')).json.reply).toMatch(/not sure what you mean/);
    // A misspelt action is offered back, never done.
    const typo = await say('swpa 5 usdc for weth', { allow_act: true });
    expect([typo.json.reply, typo.json.used, typo.json.acted]).toEqual([
      'I\'m not sure what you mean. Did you mean "swap 5 USDC for WETH"?',
      [],
      false,
    ]);
  });

  it('remember, what do you remember, forget', async () => {
    const r = await say('remember that I prefer DAI');
    expect(r.json.used).toEqual([{ tool: 'memory.remember', args: { key: 'pref:DAI', note: 'I prefer DAI' } }]);
    const listing = await say('what do you remember');
    expect(listing.json.reply).toContain('pref:DAI (I prefer DAI)');
    const mem = await call(s.url, 'GET', '/v1/memory', { key: s.live });
    expect(mem.json.pinned.map((p: { key: string }) => p.key)).toContain('pref:DAI');
    expect(mem.json.fading.map((p: { key: string }) => p.key)).toEqual(expect.arrayContaining(['pair:WETH-USDC', 'token:SCAM']));
    const f = await say('forget pair:WETH-USDC');
    expect(f.json.reply).toBe('Forgotten: pair:WETH-USDC.');
    const after = await call(s.url, 'GET', '/v1/memory', { key: s.live });
    expect(after.json.fading.map((p: { key: string }) => p.key)).not.toContain('pair:WETH-USDC');
  });
});

describe('acting in conversation', () => {
  it('without allow_act it explains; allow_act needs wallet:act', async () => {
    const before = await walletNonce();
    const r = await say('swap 5 USDC for WETH');
    expect([r.json.acted, r.json.used]).toEqual([false, []]);
    expect(r.json.reply).toMatch(/allow_act/);
    const talker = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'talker', scopes: ['talk'] } });
    const denied = await say('swap 5 USDC for WETH', { allow_act: true }, talker.json.secret);
    expect([denied.status, denied.json.type]).toEqual([403, 'scope']);
    expect(denied.json.detail).toContain('wallet:act');
    expect(await walletNonce()).toBe(before);
  });

  it('acts within policy; a retry with the same Idempotency-Key returns the same reply and never acts twice', async () => {
    const events = openStream(s.url, '/v1/events', s.live);
    await events.until(() => events.status === 200);
    const before = await walletNonce();
    const first = await say('swap 5 USDC for WETH', { allow_act: true }, s.live, 'turn-act-1');
    const afterFirst = await walletNonce();
    // The first swap of a token also sends its router approval: one or two transactions.
    expect(afterFirst - before).toBeGreaterThanOrEqual(1);
    expect(first.json.acted).toBe(true);
    expect(first.json.tx).toMatch(/^0x[0-9a-f]{64}$/);
    expect(first.json.reply).toContain(first.json.tx);
    const again = await say('swap 5 USDC for WETH', { allow_act: true }, s.live, 'turn-act-1');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const replay = await fetch(`${s.url}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.live}`, 'content-type': 'application/json', 'idempotency-key': 'turn-act-1' },
      body: JSON.stringify({ text: 'swap 5 USDC for WETH', allow_act: true, stream: true }),
    });
    const sse = await replay.text();
    expect(sse).toContain('event: done');
    expect(sse).toContain(first.json.tx);
    expect(await walletNonce()).toBe(afterFirst);
    await events.until(() => events.frames.some((f) => f.event === 'tx' && f.data.hash === first.json.tx));
    await events.close();
  });

  it('a retry that outran its stored answer (a crash between the turn and the answer) replays the turn from the thread', async () => {
    const p = await s.core.keys.authenticate(s.live);
    const sink = () => {
      const seen = { tokens: '', tools: [] as string[] };
      return {
        seen,
        sink: {
          token: (t: string) => {
            seen.tokens += t;
          },
          tool: (n: string) => {
            seen.tools.push(n);
          },
          needsConfirm: () => {},
        },
      };
    };
    const before = await walletNonce();
    const input = { text: 'swap 2 USDC for WETH', allowAct: true, idempotencyKey: 'turn-crash-window' };
    const a = sink();
    const first = await s.core.conversation.send(p, input, a.sink);
    const afterFirst = await walletNonce();
    expect(first.acted).toBe(true);
    const b = sink();
    const again = await s.core.conversation.send(p, input, b.sink);
    expect(again).toEqual(first);
    expect(b.seen.tokens).toBe(first.reply);
    expect(b.seen.tools).toEqual(a.seen.tools);
    expect(await walletNonce()).toBe(afterFirst);
    expect(afterFirst).toBeGreaterThan(before);
    const page = await call(s.url, 'GET', '/v1/messages?limit=20', { key: s.live });
    const asked = page.json.messages.filter((m: { role: string; text: string }) => m.role === 'user' && m.text === input.text);
    expect(asked).toHaveLength(1);
  });

  it('a turn over confirm_over holds; resending never resolves it; approval resumes the turn in the thread', async () => {
    const events = openStream(s.url, '/v1/events', s.live);
    await events.until(() => events.status === 200);
    const held = await say('swap 20 USDC for WETH', { allow_act: true });
    expect(held.json.acted).toBe(false);
    expect(held.json.confirm_id).toMatch(/^cf_/);
    const resent = await say('swap 20 USDC for WETH', { allow_act: true });
    expect(resent.json.confirm_id).not.toBe(held.json.confirm_id);
    const list = await call(s.url, 'GET', '/v1/confirm?status=held', { key: s.live });
    expect(list.json.confirmations.map((c: { confirm_id: string }) => c.confirm_id)).toEqual(
      expect.arrayContaining([held.json.confirm_id, resent.json.confirm_id]),
    );
    const ok = await call(s.url, 'POST', `/v1/confirm/${held.json.confirm_id}`, { key: s.live, body: { approve: true } });
    expect(ok.json.status).toBe('executed');
    await call(s.url, 'POST', `/v1/confirm/${resent.json.confirm_id}`, { key: s.live, body: { approve: false } });
    const cause = `resume:${held.json.confirm_id}`;
    await events.until(() => events.frames.some((f) => f.event === 'message' && f.data.cause === cause));
    const msg = events.frames.find((f) => f.event === 'message' && f.data.cause === cause);
    expect(msg?.data.text).toContain(ok.json.tx);
    expect(msg?.data.text).toContain('you asked: "swap 20 USDC for WETH"');
    await events.until(() => events.frames.some((f) => f.event === 'message' && f.data.cause === `resume:${resent.json.confirm_id}`));
    const thread = await call(s.url, 'GET', '/v1/messages?limit=5', { key: s.live });
    expect(thread.json.messages.some((m: { cause?: string }) => m.cause === cause)).toBe(true);
    await events.close();

    // Asked afterwards, from the store: the last swap (the one denied) and the latest, newest first.
    const last = await say('did my swap go through?');
    expect(last.json.reply).toMatch(/^Your last swap: swap 20 USDC .*: you denied it, so nothing was sent\.$/);
    const history = (await say('show me my history')).json.reply as string;
    expect(history).toMatch(/^Your latest actions, newest first: swap 20 USDC .*: you denied it, so nothing was sent; swap 20 USDC /);
    expect(history).toContain(`executed in block ${ok.json.block} (transaction ${ok.json.tx})`);
    // A key without wallet:read is told what it lacks, not the history.
    const talker = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'talk only', scopes: ['talk'] } });
    const refused = await say('show me my history', {}, talker.json.secret);
    expect(refused.json.reply).not.toContain(ok.json.tx);
    expect(refused.json.reply).toContain('wallet:read');
  });
});

describe('every action form through the local planner, checked on the chain', () => {
  let who: { key: string; address: Hex };
  const slippage = OPEN_POLICY.max_slippage_bps;
  beforeAll(async () => {
    who = await newAccount(s, 'talker');
  });

  /** One turn with allow_act by the account's own key, and how it moved the wallet's balances. */
  async function act(text: string) {
    const before = await balances(s, who.address);
    const r = await say(text, { allow_act: true }, who.key);
    expect(r.status, r.text).toBe(200);
    const after = await balances(s, who.address);
    return { r: r.json, delta: (sym: string) => (after[sym] as bigint) - (before[sym] as bigint) };
  }
  const feeOf = async (hash: string) => {
    const rpcUrl = (anvilsOf(s.dataDir)[0] as { rpcUrl: string }).rpcUrl;
    const r = await rpc<{ gasUsed: Hex; effectiveGasPrice: Hex }>(rpcUrl, 'eth_getTransactionReceipt', [hash]);
    return BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice);
  };
  const done = (reply: string) => /^Done: (.+)\. Transaction (0x[0-9a-f]{64}) landed in block (\d+)\.$/.exec(reply);

  it('send 5 USDC to 0x…: the default policy blocks it in the reply; a policy allowing sends sends exactly 5 USDC', async () => {
    const to = randomAddress();
    const text = `send 5 USDC to ${to}`;
    const usdc = tokenOf(s, 'USDC').address;
    // What the gate answers over the API for the same action: a 409 naming the deny rule.
    const gate = await call(s.url, 'POST', '/v1/wallet/intent', { key: who.key, body: { do: text } });
    expect([gate.status, gate.json.type]).toEqual([409, 'policy_block']);
    const blocked = await act(text);
    expect(blocked.r.reply).toBe(`Your spend policy stops that: ${gate.json.detail}.`);
    expect([blocked.r.acted, blocked.r.tx, blocked.r.confirm_id]).toEqual([false, undefined, undefined]);
    expect(blocked.delta('USDC')).toBe(0n);
    expect(await portOf(s).tokenBalance(usdc, to)).toBe(0n);

    const { version: _v, updated_at: _u, ...policy } = (await call(s.url, 'GET', '/v1/wallet/policy', { key: who.key })).json;
    const allowing = { ...policy, deny: policy.deny.filter((d: { action?: string }) => d.action !== 'send') };
    expect((await call(s.url, 'PUT', '/v1/wallet/policy', { key: who.key, body: allowing })).status).toBe(200);
    const sent = await act(text);
    expect(sent.r.acted).toBe(true);
    expect(done(sent.r.reply)?.[1]).toBe(`send 5 USDC (5.00 USD) to ${to}`);
    expect(done(sent.r.reply)?.[2]).toBe(sent.r.tx);
    expect(sent.delta('USDC')).toBe(-units('5', 6));
    expect(await portOf(s).tokenBalance(usdc, to)).toBe(units('5', 6));
  });

  it('buy $20 of WETH: pays 20 of the stablecoin and receives what the pool quotes', async () => {
    await putPolicy(s, who.key, OPEN_POLICY);
    const pool = await portOf(s).pair(tokenOf(s, 'USDC').address, tokenOf(s, 'WETH').address);
    const { r, delta } = await act('buy $20 of WETH');
    expect(r.acted).toBe(true);
    expect(r.used).toEqual([{ tool: 'intent.submit', args: { do: 'buy $20 of WETH' } }]);
    const m = done(r.reply);
    expect(m?.[2]).toBe(r.tx);
    // The reply rounds for people; the tx event carries the exact summary.
    expect(m?.[1]).toMatch(/^swap 20 USDC \(20\.00 USD\) for about [\d.]+ WETH \(at least [\d.]+ WETH\)$/);
    const tx = await eventMatching(s, who.key, (f) => f.event === 'tx' && f.data.hash === r.tx);
    const q = quotedOf(tx.data.intent.summary, 18, slippage);
    expect(q.symbol).toBe('WETH');
    expect(q.quoted).toBe(amountOut(units('20', 6), pool?.reserveA ?? 0n, pool?.reserveB ?? 0n));
    expect(delta('USDC')).toBe(-units('20', 6));
    expect(delta('WETH')).toBeGreaterThanOrEqual(q.min);
    expect(delta('WETH')).toBeLessThanOrEqual(q.quoted);
  });

  it('wrap 0.1 ETH: exactly 0.1 WETH more, 0.1 ETH and the gas less', async () => {
    const { r, delta } = await act('wrap 0.1 ETH');
    expect(r.acted).toBe(true);
    expect(done(r.reply)?.[2]).toBe(r.tx);
    expect(delta('WETH')).toBe(units('0.1', 18));
    expect(delta('ETH')).toBe(-(units('0.1', 18) + (await feeOf(r.tx))));
  });
});

describe('streaming', () => {
  it('streams tool, several tokens and a done with the same shape as the JSON answer', async () => {
    const res = await fetch(`${s.url}/v1/messages?stream=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'how deep is WETH-DAI' }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((b) => ({ event: /event: (\w+)/.exec(b)?.[1], data: JSON.parse(/data: (.*)/.exec(b)?.[1] ?? 'null') }));
    const kinds = frames.map((f) => f.event);
    expect(kinds[0]).toBe('tool');
    expect(kinds.filter((k) => k === 'token').length).toBeGreaterThan(2);
    expect(kinds.at(-1)).toBe('done');
    const done = frames.at(-1)?.data;
    expect(
      frames
        .filter((f) => f.event === 'token')
        .map((f) => f.data.text)
        .join(''),
    ).toBe(done.reply);
    expect(Object.keys(done).sort()).toEqual(['acted', 'memory', 'reply', 'used']);
  });
});

describe('test keys and limits', () => {
  it('a test key is answered but leaves thread and memory untouched; actions are simulated', async () => {
    const thread = (await call(s.url, 'GET', '/v1/messages', { key: s.live })).json.messages.length;
    const memory = (await call(s.url, 'GET', '/v1/memory', { key: s.live })).text;
    const standing = (await call(s.url, 'GET', '/v1/standing', { key: s.live })).text;
    const nonce = await walletNonce();
    const r = await say('swap 5 USDC for DAI', { allow_act: true }, s.test);
    expect(r.json.reply).toMatch(/^Done: swap 5 USDC/);
    expect(r.headers.get('presence-mode')).toBe('test');
    const remembered = await say('remember that I like SCAM', {}, s.test);
    expect(remembered.json.reply).toMatch(/^Noted/);
    const watching = await say('tell me when WETH is below 2500 USD', {}, s.test);
    expect(watching.json.reply).toMatch(
      /^Done — I'll keep watching \(st_\w+\): "tell me when WETH is below 2500 USD"\. To stop, say "stop watching WETH"\.$/,
    );
    const acting = await say('if WETH drops below 2000 buy $50 of WETH', { allow_act: true }, s.test);
    expect(acting.json.reply).toMatch(/^Done — I'll keep watching/);
    expect((await call(s.url, 'GET', '/v1/messages', { key: s.live })).json.messages.length).toBe(thread);
    expect((await call(s.url, 'GET', '/v1/memory', { key: s.live })).text).toBe(memory);
    expect((await call(s.url, 'GET', '/v1/standing', { key: s.live })).text).toBe(standing);
    expect(await s.core.standing.tick()).toBe(0);
    expect(await walletNonce()).toBe(nonce);
  });

  it('text over 4,000 characters is a 400 problem', async () => {
    const r = await say('x'.repeat(4001));
    expect([r.status, r.json.type]).toEqual([400, 'invalid_request']);
    expect(r.json.detail).toContain('4000');
  });

  it('turns of one account run one at a time, in the order the server received them', async () => {
    // The first turn is held inside its tool; each later (quicker) turn is sent only once the
    // server has taken the one before (its stream is open, so its turn is queued).
    const views = s.core.wallet!.views;
    const pools = views.pools;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered = 0;
    views.pools = async (...a: Parameters<typeof pools>) => {
      entered++;
      await gate;
      return pools(...a);
    };
    const entries = async () => (await s.core.store.readThread('default', { limit: 100_000 })).length;
    const before = await entries();
    const texts = ['how deep is WETH-USDC', ...Array.from({ length: 5 }, (_, i) => `hello number ${i}`)];
    const bodies: Promise<string>[] = [];
    try {
      for (const text of texts) {
        const res = await fetch(`${s.url}/v1/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${s.live}`, 'content-type': 'application/json' },
          body: JSON.stringify({ text, stream: true }),
        });
        expect(res.status).toBe(200);
        bodies.push(res.text());
      }
      await until(() => entered === 1, 5_000, 'the first turn to reach its tool');
      // A marker sent after the quick turns, outside this account's turn queue (a test key's
      // turns queue apart): once it is answered, quick turns that did not wait would be too.
      const marker = await say('hello, marker', {}, s.test);
      expect(marker.json.reply).toMatch(/^Hi!/);
      // The quick turns wait behind the slow one: none of them is stored yet.
      expect(await entries()).toBe(before);
    } finally {
      release();
      views.pools = pools;
    }
    for (const body of await Promise.all(bodies)) expect(body).toContain('event: done');
    const page = await call(s.url, 'GET', `/v1/messages?limit=${texts.length}`, { key: s.live });
    const users = page.json.messages.filter((m: { role: string }) => m.role === 'user').map((m: { text: string }) => m.text);
    expect(users).toEqual(texts);
  });

  it('GET /v1/messages pages backwards with next_before', async () => {
    for (const t of ['page one', 'page two', 'page three', 'page four']) await say(t);
    const first = await call(s.url, 'GET', '/v1/messages?limit=2', { key: s.live });
    expect(first.json.messages).toHaveLength(4);
    const older = await call(s.url, 'GET', `/v1/messages?limit=2&before=${first.json.next_before}`, { key: s.live });
    // Message ids are "<entry>.u|p": the older page ends with an earlier entry.
    const entry = (id: string) => Number.parseInt(id, 10);
    expect(older.json.messages).toHaveLength(4);
    expect(entry(older.json.messages.at(-1).id)).toBeLessThan(entry(first.json.messages[0].id));
  });
});
