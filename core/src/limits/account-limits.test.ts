// The account caps on the real lowdb store (a temp dir) with a driven clock, through core as
// the server wires it: each cap refuses one more with 409 conflict and its `limit` member, and
// freeing one (revoking a key, redeeming or outliving a code, cancelling a standing intent,
// forgetting a memory key) makes room again. The keys cap runs at its real default (100
// keys are cheap); the others at small injected limits. In chat a refusal is the reply, and
// the presence's own touches of new keys are skipped when memory is full.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { scopes as allScopes } from '@presence/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../clock/clock';
import { createConversation, type TurnInput } from '../conversation/conversation';
import type { Planner } from '../conversation/planner-port';
import { type Core, createCore } from '../create-core';
import { PresenceError } from '../errors/presence-error';
import type { Principal } from '../keys/key-service';
import { createKeystore } from '../keystore/keystore';
import { parseStanding } from '../standing/standing-parser';
import { createLowdbStore } from '../store/lowdb/lowdb-store';
import type { EmbeddedStore } from '../store/store-port';
import { accountLimits } from './account-limits';

const clock = createManualClock(Date.parse('2026-05-01T08:00:00Z'));
const small = { links: 3, standing: 2, memory: 3 };
let dir: string;
let store: EmbeddedStore;
let core: Core;
let admin: Principal;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'account-limits-'));
  const keystore = createKeystore(randomBytes(32));
  store = await createLowdbStore({ dataDir: dir, fsync: false, keystore });
  core = createCore({ store, clock, keystore, rateLimit: { limit: 1_000, windowMs: 1_000 }, accountLimits: small });
  const { admin: key } = await core.accounts.create('acct');
  admin = await core.keys.authenticate(key.secret);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What `run` was refused with: the problem's detail and its `limit` member. */
async function refusal(run: () => Promise<unknown>) {
  const e = await run().then(
    () => null,
    (x: unknown) => x,
  );
  if (!(e instanceof PresenceError)) throw new Error(`expected a PresenceError, got ${String(e)}`);
  const p = e.toProblem();
  return { type: p.type, status: p.status, limit: e.extra.limit, detail: p.detail };
}

const newKey = (kind: 'live' | 'test' = 'live') => core.keys.issue(admin, { kind, name: 'k', scopes: ['talk'] });
const daily = (n: number) => `every day at 0${n}:00 tell me my balance`;
const standing = (text: string, kind: 'live' | 'test' = 'live') =>
  core.standing.create({ accountId: 'acct', kind, keyId: admin.keyId, scopes: allScopes }, text, parseStanding(text)!, {
    allowAct: false,
  });

describe('keys', () => {
  it('refuses a key beyond the default cap of keys not revoked, live and test together, until one is revoked', async () => {
    expect(accountLimits.keys).toBe(100);
    // The admin key is the first; a stored test key counts the same as a live one.
    const testKey = await core.keys.create('acct', { kind: 'test', name: 't', scopes: allScopes });
    const made = [];
    for (let i = 2; i < accountLimits.keys; i++) made.push(await newKey());
    expect((await core.keys.list('acct')).length).toBe(accountLimits.keys);
    expect(await refusal(() => newKey())).toEqual({
      type: 'conflict',
      status: 409,
      limit: 'keys_per_account',
      detail: 'An account holds at most 100 keys that are not revoked; revoke one first.',
    });
    // A test key rehearses the same answer (it would store nothing, but says what live would).
    const tester = await core.keys.authenticate(testKey.secret);
    expect((await refusal(() => core.keys.issue(tester, { kind: 'live', name: 'x', scopes: [] }))).limit).toBe('keys_per_account');
    await core.keys.revoke(admin, made[0]!.id);
    expect((await newKey()).state).toBe('active');
    expect((await refusal(() => newKey())).limit).toBe('keys_per_account');
  });

  it('a link code redeemed at the cap is refused with the cap, and says to ask for a new code', async () => {
    const tight = createCore({
      store,
      clock,
      keystore: createKeystore(randomBytes(32)),
      rateLimit: { limit: 1_000, windowMs: 1_000 },
      accountLimits: { keys: 2 },
    });
    await tight.keys.create('acct', { kind: 'live', name: 'second', scopes: ['talk'] });
    const { code } = await tight.links.create('acct');
    const who = { surface: 'telegram', user_id: 'u1', name: 'me' };
    const r = await refusal(async () => tight.links.redeem(code, who, await tight.links.attemptRedeem('127.0.0.1')));
    expect(r).toMatchObject({ status: 409, limit: 'keys_per_account' });
    expect(r.detail).toMatch(/revoke one first\. Then ask for a new link code\.$/);
  });
});

describe('link codes', () => {
  const who = { surface: 'telegram', user_id: 'u1', name: 'me' };

  it('refuses a code beyond the outstanding cap; redeeming one or letting one expire makes room', async () => {
    const codes = [];
    for (let i = 0; i < small.links; i++) codes.push(await core.links.create('acct', ['talk'], i === 0 ? 60 : 600));
    expect(await refusal(() => core.links.create('acct'))).toEqual({
      type: 'conflict',
      status: 409,
      limit: 'links_per_account',
      detail: 'An account has at most 3 unused link codes at once; redeem one or wait for one to expire first.',
    });
    // Another account is not held back by this one's codes.
    await core.accounts.create('other');
    await expect(core.links.create('other')).resolves.toMatchObject({ scopes: expect.any(Array) });

    await core.links.redeem(codes[1]!.code, who, await core.links.attemptRedeem('127.0.0.1'));
    await core.links.create('acct');
    expect((await refusal(() => core.links.create('acct'))).limit).toBe('links_per_account');
    clock.advance(61_000); // the first code (60 s) has expired
    await core.links.create('acct');
    expect((await refusal(() => core.links.create('acct'))).limit).toBe('links_per_account');
  });
});

describe('standing intents', () => {
  it('refuses one more active one in the kind’s store; cancelling one makes room', async () => {
    const made = [await standing(daily(1)), await standing(daily(2))];
    expect(await refusal(() => standing(daily(3)))).toEqual({
      type: 'conflict',
      status: 409,
      limit: 'standing_per_account',
      detail: 'An account keeps at most 2 active standing intents; cancel one first.',
    });
    // A prepared record committed after the cap filled is refused at commit too.
    const spec = parseStanding(daily(4))!;
    await core.standing.cancel({ accountId: 'acct', kind: 'live' }, made[0]!.id);
    const prepared = await core.standing.prepare(
      { accountId: 'acct', kind: 'live', keyId: admin.keyId, scopes: allScopes },
      daily(4),
      spec,
      {
        allowAct: false,
      },
    );
    await standing(daily(5));
    expect((await refusal(() => core.standing.commit({ accountId: 'acct', kind: 'live' }, prepared))).limit).toBe('standing_per_account');
    await core.standing.cancel({ accountId: 'acct', kind: 'live' }, made[1]!.id);
    await expect(core.standing.commit({ accountId: 'acct', kind: 'live' }, prepared)).resolves.toMatchObject({ state: 'active' });
    await core.standing.cancel({ accountId: 'acct', kind: 'live' }, prepared.id);
    await core.standing.cancel({ accountId: 'acct', kind: 'live' }, (await core.standing.list({ accountId: 'acct', kind: 'live' }))[0]!.id);
  });
});

describe('memory', () => {
  it('refuses a pin of a new key when full; re-pinning and touching held keys always work; forgetting makes room', async () => {
    for (const k of ['topic:a', 'topic:b']) await core.memory.pin({ accountId: 'acct', kind: 'live' }, k, 'note');
    await core.memory.touch({ accountId: 'acct', kind: 'live' }, ['topic:c']);
    expect(await refusal(() => core.memory.pin({ accountId: 'acct', kind: 'live' }, 'topic:d', 'note'))).toEqual({
      type: 'conflict',
      status: 409,
      limit: 'memory_per_account',
      detail: 'The presence remembers at most 3 keys per account; forget one first.',
    });
    expect((await refusal(() => core.memory.previewPin({ accountId: 'acct', kind: 'live' }, 'topic:d'))).limit).toBe('memory_per_account');
    // Held keys: a new note, a pin of the fading one, a touch.
    await expect(core.memory.pin({ accountId: 'acct', kind: 'live' }, 'topic:a', 'new note')).resolves.toMatchObject({ changed: true });
    await expect(core.memory.pin({ accountId: 'acct', kind: 'live' }, 'topic:c', 'now pinned')).resolves.toMatchObject({ changed: true });
    // A touch of a new key is skipped, not refused; a held key in the same touch is touched.
    expect(await core.memory.touch({ accountId: 'acct', kind: 'live' }, ['topic:b', 'topic:new'])).toEqual(['topic:b']);
    expect(await core.memory.counts({ accountId: 'acct', kind: 'live' })).toEqual({ pinned: 3, fading: 0 });
    await core.memory.forget({ accountId: 'acct', kind: 'live' }, 'topic:b');
    await expect(core.memory.pin({ accountId: 'acct', kind: 'live' }, 'topic:d', 'note')).resolves.toMatchObject({ changed: true });
  });

  it('counts the keys a turn staged before the one it previews', async () => {
    await core.memory.pin({ accountId: 'acct', kind: 'live' }, 'topic:a', 'note');
    const staged = new Set(['topic:b', 'topic:a']);
    await expect(core.memory.previewPin({ accountId: 'acct', kind: 'live' }, 'topic:c', undefined, staged)).resolves.toMatchObject({
      key: 'topic:c',
    });
    staged.add('topic:c');
    expect((await refusal(() => core.memory.previewPin({ accountId: 'acct', kind: 'live' }, 'topic:d', undefined, staged))).limit).toBe(
      'memory_per_account',
    );
  });
});

describe('in chat', () => {
  const turn = async (text: string) => {
    const input: TurnInput = { text, allowAct: false, idempotencyKey: null };
    const answer = await (await core.conversation.begin(admin, input)).run({ token: () => {}, tool: () => {}, needsConfirm: () => {} });
    if (!('result' in answer)) throw new Error(`the turn failed: ${answer.problem.detail}`);
    return answer.result.reply;
  };

  it('a refusal at a cap is what the presence says, and the turn is stored', async () => {
    for (const k of ['topic:a', 'topic:b', 'topic:c']) await core.memory.pin({ accountId: 'acct', kind: 'live' }, k, 'note');
    expect(await turn('remember that I like long walks')).toBe(
      'I could not remember that: The presence remembers at most 3 keys per account; forget one first.',
    );
    await standing(daily(1));
    await standing(daily(2));
    expect(await turn(daily(3))).toBe("I can't set that up: An account keeps at most 2 active standing intents; cancel one first.");
    expect(await core.standing.list({ accountId: 'acct', kind: 'live' })).toHaveLength(2);
    expect((await store.readThread('acct', { limit: 10 })).filter((e) => e.kind === 'turn')).toHaveLength(2);
    for (const r of await core.standing.list({ accountId: 'acct', kind: 'live' }))
      await core.standing.cancel({ accountId: 'acct', kind: 'live' }, r.id);
  });

  it('a staged pin refused because the cap filled meanwhile ends the turn as answered, without the pin', async () => {
    // A planner that pins through its tool, then (as another request would) fills memory.
    const planner: Planner = {
      name: 'stub:racing',
      async run(_ctx, io) {
        const remember = io.tools.find((t) => t.name === 'memory.remember');
        const r = await remember?.run({ key: 'topic:staged', note: 'n' });
        for (const k of ['topic:a', 'topic:b', 'topic:c']) await core.memory.pin({ accountId: 'acct', kind: 'live' }, k, 'note');
        return `staged ${JSON.stringify(r)}`;
      },
    };
    const conversation = createConversation({
      storeFor: core.storeFor,
      clock,
      memory: core.memory,
      wallet: null,
      standing: core.standing,
      thread: core.thread,
      planners: () => planner,
      tokenList: null,
      idempotency: core.idempotency,
    });
    const turn = await conversation.begin(admin, { text: 'hello', allowAct: false, idempotencyKey: null });
    const answer = await turn.run({ token: () => {}, tool: () => {}, needsConfirm: () => {} });
    expect(answer.status).toBe(200);
    expect((await core.memory.list({ accountId: 'acct', kind: 'live' })).pinned.map((e) => e.key)).toEqual([
      'topic:a',
      'topic:b',
      'topic:c',
    ]);
  });
});
