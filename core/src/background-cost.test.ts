// Cost follows work, not accounts (DESIGN.md): the beat and upkeep ask the store a bounded
// number of questions whatever the number of accounts, and still find the work that is due
// among thousands of idle ones. Counted through the store port, on a real devnet, for each
// store; on PostgreSQL also the SQL statements behind the port, where a store answering one
// call with a query per account would show.
import { scopes as allScopes, type PolicyDocument } from '@presence/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevnetCore, type DevnetStoreKind, startDevnetCore } from '../testing/devnet-core-fixture';
import { createManualClock } from './clock/clock';
import { parseStanding } from './standing/standing-parser';
import type { StorePort } from './store/store-port';

const calls = new Map<string, number>();
/** Every call core makes to the store, counted by operation. */
const counting = <S extends StorePort>(store: S): S =>
  new Proxy(store, {
    get(target, name, receiver) {
      const v = Reflect.get(target, name, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        calls.set(String(name), (calls.get(String(name)) ?? 0) + 1);
        return v.apply(target, args);
      };
    },
  });

const HOLDING: Partial<PolicyDocument> = { confirm_over: '1 USD', confirm_timeout_s: 300 };

describe.each<DevnetStoreKind>(['lowdb', 'postgres'])('background work over many accounts: %s', (kind) => {
  const clock = createManualClock(Date.parse('2026-03-02T08:00:00Z'));
  let t: DevnetCore;
  beforeAll(async () => {
    t = await startDevnetCore(clock, 'background-cost', counting, kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  /**
   * Idle accounts as an operator's deployment holds them: made, with a pin and an event each,
   * then left alone. Through the port on both stores: 10,000 take about 4 s on PostgreSQL
   * (7 s on lowdb), so nothing is seeded behind core's back in SQL.
   */
  async function addIdleAccounts(from: number, n: number) {
    for (let i = from; i < from + n; i++) {
      const id = `idle${i}`;
      await t.store.createAccount({
        id,
        name: id,
        created_at: new Date(clock.now()).toISOString(),
        presence: { name: 'Presence', model: 'local', preferences: {} },
        policy: null,
      });
      if (i % 10 === 0) {
        await t.core.memory.pin({ accountId: id, kind: 'live' }, 'token:WETH', 'kept');
        await t.store.appendEvent(id, { type: 'memory', data: { key: 'token:WETH', tier: 'pinned' }, at: clock.now() });
      }
    }
  }

  /**
   * The store calls of one beat, one upkeep and one compactor run, and on PostgreSQL the SQL
   * statements behind them: a store looping over accounts inside one call shows only there.
   */
  async function backgroundCalls(): Promise<{ calls: Record<string, number>; statements: number | null }> {
    calls.clear();
    const before = t.statements();
    await t.core.tick();
    await t.core.maintain();
    await t.core.compactor.runOnce();
    const after = t.statements();
    return { calls: Object.fromEntries([...calls].sort()), statements: after === null || before === null ? null : after - before };
  }

  it('asks the store the same questions with 10 accounts or 10,010, and never lists accounts', async () => {
    await addIdleAccounts(0, 10);
    await backgroundCalls(); // settles what the first pass indexes
    const few = await backgroundCalls();
    await addIdleAccounts(10, 10_000);
    const many = await backgroundCalls();
    expect(many).toEqual(few);
    expect(Object.keys(many.calls)).not.toContain('listAccounts');
    expect(Object.values(many.calls).reduce((a, b) => a + b, 0)).toBeLessThan(20);
    if (kind === 'postgres') expect(many.statements).toBeLessThan(20);
  });

  it('with 10,000 idle accounts present, a hold expires and a daily standing intent fires on time', async () => {
    const a = await t.account('busy', HOLDING);
    const held = await t.wallet.pipeline.submit({ caller: { accountId: a.id, kind: 'live' }, text: 'wrap 0.002 ETH', source: 'api' });
    expect(held.status).toBe('needs_confirm');
    const [admin] = await t.core.keys.list(a.id);
    const owner = { accountId: a.id, kind: 'live' as const, keyId: admin?.id ?? null, scopes: allScopes };
    const text = 'every day at 09:00 tell me my balance';
    const daily = await t.core.standing.create(owner, text, parseStanding(text) as NonNullable<ReturnType<typeof parseStanding>>, {
      allowAct: false,
    });

    await t.core.tick();
    expect((await t.store.getIntent(a.id, held.intent_id as string))?.state).toBe('held');
    expect(await t.events(a.id, 'live', 'message')).toEqual([]);

    clock.set(Date.parse('2026-03-02T09:00:00Z')); // the daily time; the hold (300 s) is long past
    await t.core.tick();
    expect((await t.store.getIntent(a.id, held.intent_id as string))?.state).toBe('expired');
    expect((await t.events(a.id, 'live', 'confirm')).map((e) => e.data.status)).toEqual(['expired']);
    const said = await t.events(a.id, 'live', 'message');
    expect(said.map((e) => e.data.cause)).toEqual([`standing:${daily.id}`]);
    expect(String(said[0]?.data.text)).toMatch(/^Your daily balance: /);
  });
});
