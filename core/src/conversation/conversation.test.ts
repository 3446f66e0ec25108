// The conversation on the real lowdb store (a temp dir) with a driven clock, no chain: a turn
// is one thread entry, an account's turns run one at a time in arrival order, a retry with the
// same Idempotency-Key is a replay (of the stored answer, or of the turn the thread kept when
// the answer was lost), the planner sees history cut to the one budget, and a refused request
// leaves nothing behind. Planners other than `local` are stand-ins behind the planner port.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Scope } from '@presence/protocol';
import { scopes as allScopes } from '@presence/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadTokenList } from '../chain/token-list';
import { createManualClock } from '../clock/clock';
import { type Core, createCore } from '../create-core';
import { PresenceError } from '../errors/presence-error';
import type { Principal } from '../keys/key-service';
import { createKeystore } from '../keystore/keystore';
import { scopesMissing } from '../replies/replies';
import { createLowdbStore } from '../store/lowdb/lowdb-store';
import type { EmbeddedStore } from '../store/store-port';
import { type Conversation, createConversation, type PlannerResolver, type TurnSink } from './conversation';
import { HISTORY_BUDGET_CHARS, HISTORY_MESSAGE_CHARS, HISTORY_TURNS } from './history-budget';
import { createLocalPlanner } from './local-planner';
import type { Planner, PlannerContext } from './planner-port';

const tokenList = await loadTokenList(path.join(import.meta.dirname, '../chain/lists/base-mainnet.json'));

/**
 * A planner that answers "reply to <text>" ("repeat…": the last reply in its history, word for
 * word) and records what it was given; a text in `gates` waits for it.
 */
function recordingPlanner() {
  const seen: PlannerContext[] = [];
  const gates = new Map<string, { entered: () => void; open: Promise<void> }>();
  const planner: Planner = {
    name: 'stub:recording',
    async run(ctx, io) {
      seen.push(ctx);
      const gate = gates.get(ctx.text);
      if (gate) {
        gate.entered();
        await gate.open;
      }
      const reply = ctx.text.startsWith('long ')
        ? `long reply ${'y'.repeat(1_000)}`
        : ctx.text.startsWith('repeat')
          ? (ctx.history.at(-1)?.reply ?? 'nothing to repeat')
          : `reply to ${ctx.text}`;
      io.token(reply);
      return reply;
    },
  };
  /** Holds the turn whose text is `text` inside the planner until released. */
  const hold = (text: string) => {
    let release!: () => void;
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    gates.set(text, { entered, open: new Promise<void>((r) => (release = r)) });
    return { inside, release };
  };
  return { planner, seen, hold, texts: () => seen.map((c) => c.text) };
}

function collect() {
  const events: string[] = [];
  let tokens = '';
  const sink: TurnSink = {
    token: (t) => {
      tokens += t;
    },
    tool: (name) => events.push(`tool ${name}`),
    needsConfirm: (id) => events.push(`needs_confirm ${id}`),
  };
  return { sink, events, tokens: () => tokens };
}

let dir: string;
let store: EmbeddedStore;
let core: Core;
let conversation: Conversation;
let recording: ReturnType<typeof recordingPlanner>;
const clock = createManualClock(Date.parse('2026-03-01T00:00:00Z'));

const principal = (scopes: readonly Scope[] = allScopes, kind: 'live' | 'test' = 'live', accountId = 'acct'): Principal => ({
  keyId: `key_${kind}`,
  accountId,
  kind,
  scopes,
  validUntil: null,
  secretHash: 'h',
});
const useModel = (model: string, accountId = 'acct') =>
  store.updateAccount(accountId, (a) => ({ ...a, presence: { ...a.presence, model } }));

/** Begins and runs one turn, as a transport would. */
async function say(p: Principal, text: string, o: { allowAct?: boolean; key?: string; sink?: TurnSink } = {}) {
  const turn = await conversation.begin(p, { text, allowAct: o.allowAct ?? false, idempotencyKey: o.key ?? null });
  const answer = await turn.run(o.sink ?? collect().sink);
  return { replayed: turn.replayed, answer };
}
const thread = async (accountId = 'acct') => store.readThread(accountId, { limit: 1_000 });

/** The conversation over this test's store and core services, with `planners` behind the planner port. */
const conversationWith = (planners: PlannerResolver) =>
  createConversation({
    storeFor: core.storeFor,
    clock,
    memory: core.memory,
    wallet: null,
    standing: core.standing,
    thread: core.thread,
    planners,
    tokenList,
    idempotency: core.idempotency,
  });

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'conversation-'));
  store = await createLowdbStore({ dataDir: dir, keystore: createKeystore(randomBytes(32)) });
  core = createCore({ store, clock, rateLimit: { limit: 1_000, windowMs: 1_000 } });
  recording = recordingPlanner();
  const local = createLocalPlanner();
  conversation = conversationWith((model) => (model === 'local' ? local : recording.planner));
  await core.accounts.create('acct');
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a turn', () => {
  it('is stored as one thread entry, question and reply together; its answer is the JSON of its result', async () => {
    const sink = collect();
    const { replayed, answer } = await say(principal(), 'remember that I prefer DAI', { sink: sink.sink });
    expect(replayed).toBe(false);
    if (!('result' in answer)) throw new Error(answer.problem.detail);
    expect(answer.result.reply).toBe("Noted — I'll remember that I prefer DAI (kept under pref:DAI).");
    expect(answer).toMatchObject({ status: 200, body: JSON.stringify(answer.result) });
    expect([sink.events, sink.tokens()]).toEqual([['tool memory.remember'], answer.result.reply]);
    const entries = await thread();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      kind: 'turn',
      user: 'remember that I prefer DAI',
      reply: answer.result.reply,
      used: [{ tool: 'memory.remember', args: { key: 'pref:DAI', note: 'I prefer DAI' } }],
      touched: ['token:DAI', 'pref:DAI'],
      at: clock.now(),
    });
    expect((await core.memory.list({ accountId: 'acct', kind: 'live' })).pinned.map((e) => e.key)).toEqual(['pref:DAI']);
  });

  it('of a test key is kept in its overlay, never in the live thread or memory', async () => {
    const { answer } = await say(principal(allScopes, 'test'), 'remember that I prefer DAI');
    expect('result' in answer && answer.result.reply).toMatch(/^Noted/);
    expect(await thread()).toEqual([]);
    expect((await core.memory.list({ accountId: 'acct', kind: 'live' })).pinned).toEqual([]);
    expect(await core.storeFor('test').readThread('acct', { limit: 10 })).toHaveLength(1);
    expect((await core.memory.list({ accountId: 'acct', kind: 'test' })).pinned.map((e) => e.key)).toEqual(['pref:DAI']);
  });
});

describe('turns of one account', () => {
  it('run one at a time, in the order they arrived', async () => {
    await useModel('stub:recording');
    await core.accounts.create('other');
    await useModel('stub:recording', 'other');
    const slow = recording.hold('first, slow');
    const arrived = ['first, slow', 'second', 'third', 'fourth'];
    const running = arrived.map((text) => say(principal(), text));
    await slow.inside;
    // A marker: another account's turn, sent after them, reaches its planner. Had this
    // account's later turns not waited for the first, they would have reached theirs before it.
    const marker = recording.hold('marker');
    const other = say(principal(allScopes, 'live', 'other'), 'marker');
    await marker.inside;
    expect(recording.texts()).toEqual(['first, slow', 'marker']);
    expect(await thread()).toEqual([]);
    slow.release();
    marker.release();
    await Promise.all([...running, other]);
    expect(recording.texts()).toEqual(['first, slow', 'marker', 'second', 'third', 'fourth']);
    expect((await thread()).map((e) => e.kind === 'turn' && e.user)).toEqual(arrived);
  });
});

describe('a retry with the same Idempotency-Key', () => {
  it('replays the stored answer byte for byte, re-emitting its events, and runs nothing again', async () => {
    const first = collect();
    const a = await say(principal(), 'remember that I prefer DAI', { key: 'k-1', sink: first.sink });
    const again = collect();
    const b = await say(principal(), 'remember that I prefer DAI', { key: 'k-1', sink: again.sink });
    expect([a.replayed, b.replayed]).toEqual([false, true]);
    expect(b.answer.body).toBe(a.answer.body);
    expect(again.events).toEqual(first.events);
    expect(again.tokens()).toBe(first.tokens());
    expect(await thread()).toHaveLength(1);
    // The key names this request: another text under it is refused, not answered with this one.
    await expect(say(principal(), 'remember that I prefer USDC', { key: 'k-1' })).rejects.toMatchObject({ type: 'idempotency_mismatch' });
  });

  it('whose answer was lost after the turn was stored replays the turn from the thread', async () => {
    const put = store.putIdempotencyRecord.bind(store);
    let failures = 1;
    store.putIdempotencyRecord = async (...args) => {
      if (failures-- > 0) throw new Error('disk full');
      return put(...args);
    };
    await expect(say(principal(), 'remember that I prefer DAI', { key: 'k-lost' })).rejects.toThrow('disk full');
    const [stored] = await thread();
    if (stored?.kind !== 'turn') throw new Error('the turn was not stored');

    const retry = collect();
    const r = await say(principal(), 'remember that I prefer DAI', { key: 'k-lost', sink: retry.sink });
    expect(r.replayed).toBe(false);
    expect('result' in r.answer && r.answer.result).toEqual({
      reply: stored.reply,
      used: stored.used,
      memory: { touched: stored.touched },
      acted: false,
    });
    expect([retry.events, retry.tokens()]).toEqual([['tool memory.remember'], stored.reply]);
    expect(await thread()).toHaveLength(1);
    // Now the answer is stored: the next retry is a replay of it.
    const third = await say(principal(), 'remember that I prefer DAI', { key: 'k-lost' });
    expect([third.replayed, third.answer.body]).toEqual([true, r.answer.body]);
  });

  it('of a turn that ended in a 4xx replays the problem; a 5xx is not kept, so the retry runs', async () => {
    const failing = conversationWith(() => {
      throw new PresenceError('not_found', 'no such planner');
    });
    const begin = (text: string, key: string) => failing.begin(principal(), { text, allowAct: false, idempotencyKey: key });
    await expect((await begin('hello', 'k-404')).run(collect().sink)).rejects.toMatchObject({ type: 'not_found' });
    const replay = await begin('hello', 'k-404');
    expect(replay.replayed).toBe(true);
    expect(await replay.run(collect().sink)).toMatchObject({ status: 404, problem: { type: 'not_found', detail: 'no such planner' } });

    const crashing = await conversationWhosePlannerThrows(new Error('boom')).begin(principal(), {
      text: 'hello',
      allowAct: false,
      idempotencyKey: 'k-500',
    });
    await expect(crashing.run(collect().sink)).rejects.toThrow('boom');
    const rerun = await say(principal(), 'hello', { key: 'k-500' });
    expect(rerun.replayed).toBe(false);
  });
});

function conversationWhosePlannerThrows(error: Error) {
  return conversationWith(() => ({
    name: 'stub:throws',
    run: async () => {
      throw error;
    },
  }));
}

describe('the history a planner sees', () => {
  it('keeps to the turn key’s scopes: a reply that drew on pinned memory reaches a talk-only key’s planner and thread page redacted', async () => {
    await core.memory.pin({ accountId: 'acct', kind: 'live' }, 'topic:vault', 'the vault code is 0451');
    await useModel('local');
    const answered = await say(principal(), 'what do you remember');
    expect(JSON.stringify(answered.answer)).toContain('0451');
    await useModel('stub:recording');
    const talk = principal(['talk']);
    await say(talk, 'repeat what you said before');
    const seenByTalk = recording.seen.at(-1)?.history ?? [];
    expect(JSON.stringify(seenByTalk)).not.toContain('0451');
    expect(seenByTalk.at(-1)?.reply).toMatch(/redacted: this drew on memory:read/);
    const page = await conversation.list(talk, undefined, 50);
    expect(JSON.stringify(page)).not.toContain('0451');
    // A key holding memory:read sees it all.
    await say(principal(['talk', 'memory:read']), 'and again');
    expect(JSON.stringify(recording.seen.at(-1)?.history)).toContain('0451');
  });

  it('marks a reply with the scopes of the history it was shown: a repeat made for a full key reaches a talk-only key redacted', async () => {
    await core.memory.pin({ accountId: 'acct', kind: 'live' }, 'topic:vault', 'the vault code is 0451');
    await useModel('local');
    expect(JSON.stringify((await say(principal(), 'what do you remember')).answer)).toContain('0451');
    // Unpinned: the repeat sees no pinned memory, only the turn that quoted it.
    await core.memory.forget({ accountId: 'acct', kind: 'live' }, 'topic:vault');
    await useModel('stub:recording');
    const repeated = await say(principal(), 'repeat what you said before');
    expect(recording.seen.at(-1)?.pinned).toEqual([]);
    expect(JSON.stringify(repeated.answer)).toContain('0451');
    expect((await thread()).at(-1)).toMatchObject({ kind: 'turn', user: 'repeat what you said before', scopes: ['memory:read'] });
    const page = await conversation.list(principal(['talk']), undefined, 50);
    expect(JSON.stringify(page)).not.toContain('0451');
  });

  it('is what the local planner recaps: the last three messages before this one, the person’s words only', async () => {
    await useModel('local');
    const first = await say(principal(), 'what did I ask you earlier?');
    expect(JSON.stringify(first.answer)).toContain('This is the start of our conversation');
    for (const text of ['hi', 'what do you remember', 'thanks!']) await say(principal(), text);
    const recap = await say(principal(), 'what did i ask you earlier?');
    expect(JSON.stringify(recap.answer)).toContain(
      'Your last 3 messages before this one, oldest first: \\"hi\\", \\"what do you remember\\", \\"thanks!\\".',
    );
  });

  it(`is the last ${HISTORY_TURNS} turns, oldest first, without the presence's own speech`, async () => {
    await useModel('stub:recording');
    const n = HISTORY_TURNS + 2;
    for (let i = 0; i < n; i++) await say(principal(), `turn ${i}`);
    await core.thread.say({ accountId: 'acct', kind: 'live' }, 'WETH is below your line.', 'standing:st_x', ['wallet:read']);
    await say(principal(), 'now');
    const last = recording.seen.at(-1);
    expect(last?.history).toEqual(
      Array.from({ length: HISTORY_TURNS }, (_, k) => n - HISTORY_TURNS + k).map((i) => ({
        user: `turn ${i}`,
        reply: `reply to turn ${i}`,
      })),
    );
  });

  it(`clips each message to ${HISTORY_MESSAGE_CHARS} characters and keeps the newest turns within ${HISTORY_BUDGET_CHARS}`, async () => {
    await useModel('stub:recording');
    for (let i = 0; i < 4; i++) await say(principal(), `long ${i} ${'x'.repeat(3_900)}`);
    await say(principal(), 'short');
    const history = recording.seen.at(-1)?.history ?? [];
    const chars = history.reduce((sum, t) => sum + t.user.length + t.reply.length, 0);
    expect(chars).toBeLessThanOrEqual(HISTORY_BUDGET_CHARS);
    expect(history.map((t) => t.user.slice(0, 6))).toEqual(['long 2', 'long 3']);
    for (const t of history) {
      expect([t.user.length, t.reply.length]).toEqual([HISTORY_MESSAGE_CHARS + 1, 1_011]);
      expect(t.user.endsWith('…')).toBe(true);
    }
  });
});

describe('a refused request leaves nothing', () => {
  it('allow_act without wallet:act is refused before the turn: no thread entry, no answer kept under its key', async () => {
    const talker = principal(['talk', 'memory:read', 'memory:write', 'wallet:read']);
    await expect(say(talker, 'swap 5 USDC for WETH', { allowAct: true, key: 'k-act' })).rejects.toMatchObject({ type: 'scope' });
    expect(await thread()).toEqual([]);
    expect(await store.getIdempotencyRecord('acct', 'k-act')).toBeNull();
  });

  it('a tool the key may not use is not run, and the keys the message mentions are not touched', async () => {
    const events = (await store.eventBounds('acct')).latest;
    const talker = principal(['talk']);
    const sink = collect();
    const { answer } = await say(talker, 'remember that I prefer DAI over WETH', { sink: sink.sink });
    if (!('result' in answer)) throw new Error(answer.problem.detail);
    expect(answer.result).toEqual({ reply: scopesMissing(['memory:write']), used: [], memory: { touched: [] }, acted: false });
    expect(sink.events).toEqual([]);
    expect(await core.memory.list({ accountId: 'acct', kind: 'live' })).toEqual({ pinned: [], fading: [] });
    expect((await store.eventBounds('acct')).latest).toBe(events);
    // The same words from a key that may write memory do pin, and touch what they mention.
    const { answer: allowed } = await say(principal(), 'remember that I prefer DAI over WETH');
    expect('result' in allowed && allowed.result.memory.touched).toEqual(['token:DAI', 'token:WETH', 'pref:DAI']);
  });
});
