// The store port's contract, run against every adapter (lowdb-contract.test.ts,
// postgres/postgres-store.test.ts, and an outside adapter through `@presence/core/testing`):
// each operation's answers, and what must hold under concurrency. "Peers" are handles on the
// same data as other servers would hold them: separate connection pools for PostgreSQL; for
// lowdb the one store, since a data directory has one owner. A test here describes the port,
// never one adapter's internals. One suite per record family, as the port has one port per
// family (store-contract/<family>.ts); `describeStoreContract` runs them all, and a store that
// honours only some (the test keys' overlay) runs those (`sections`).
import { describe, expect, it } from 'vitest';
import type { StorePort } from '../src/store/store-port';
import {
  account,
  answer,
  apiKey,
  freshStoreEachTest,
  intentRecord,
  link,
  memo,
  type OpenStoreHarness,
  type StoreHarness,
  standing,
  turn,
  wallet,
} from './fixtures';
import { accountsContract } from './store-contract/accounts';
import { type ContractContext, type ContractSection, contractSections } from './store-contract/context';
import { eventsContract } from './store-contract/events';
import { idempotencyContract } from './store-contract/idempotency';
import { intentsContract } from './store-contract/intents';
import { keysContract } from './store-contract/keys';
import { linksContract } from './store-contract/links';
import { memoryContract } from './store-contract/memory';
import { standingContract } from './store-contract/standing';
import { threadContract } from './store-contract/thread';
import { walletsContract } from './store-contract/wallets';

export { type ContractContext, type ContractSection, contractSections } from './store-contract/context';

/** Each family's suite, by its section. */
const familySuites: Record<ContractSection, (ctx: ContractContext) => void> = {
  accounts: accountsContract,
  keys: keysContract,
  memory: memoryContract,
  events: eventsContract,
  'idempotency answers': idempotencyContract,
  wallets: walletsContract,
  intents: intentsContract,
  thread: threadContract,
  'standing intents': standingContract,
  links: linksContract,
};

export function describeStoreContract(
  name: string,
  open: OpenStoreHarness,
  {
    sections = contractSections,
    durable = true,
  }: {
    /** For a store that honours only part of the port (the test keys' overlay). */
    sections?: readonly ContractSection[];
    /** Whether what it answered survives `reopen` (the last test). */
    durable?: boolean;
  } = {},
) {
  describe(`store contract: ${name}`, () => {
    let h: StoreHarness;
    let store: StorePort;
    freshStoreEachTest(open, (opened) => {
      h = opened;
      store = opened.store;
    });
    const ctx: ContractContext = {
      current: () => ({ h, store }),
      durable,
      section: (section, fn) => {
        if (sections.includes(section)) describe(section, fn);
      },
    };
    for (const section of contractSections) familySuites[section](ctx);

    if (!durable) return;
    it('everything answered is still there after the store is opened again', async () => {
      await store.createAccount(account('a'));
      await store.insertKey(apiKey('k', 'a', ['h']));
      await store.changeMemory('a', ['topic:x'], () => ({ put: [memo('topic:x')], result: undefined }));
      await store.appendEvent('a', { type: 'memory', data: { x: 1 }, at: 1 });
      await store.putIdempotencyRecord('a', answer('k', 1));
      await store.createWallet(wallet('a', '0xa'));
      await store.createIntent(intentRecord('in_1', 1, { state: 'held', confirm_id: 'cf' }));
      await store.transitionIntent('a', 'in_1', ['held'], 'executing');
      await store.appendThread('a', turn('q'));
      await store.putStanding(standing('a', 's1'));
      await store.putLink(link('h', 100), 0);

      store = await h.reopen();
      expect(await store.getAccount('a')).toEqual(account('a'));
      expect((await store.findKeyBySecretHash('h'))?.id).toBe('k');
      expect(await store.readMemory('a')).toEqual([memo('topic:x')]);
      expect(await store.eventBounds('a')).toEqual({ oldest: 1, latest: 1 });
      expect(await store.getIdempotencyRecord('a', 'k')).toEqual(answer('k', 1));
      expect((await store.getWallet('a'))?.address).toBe('0xa');
      expect((await store.getIntent('a', 'in_1'))?.state).toBe('executing');
      expect((await store.appendThread('a', turn('q2'))).id).toBe(2);
      expect(await store.listStanding('a')).toEqual([standing('a', 's1')]);
      expect(await store.redeemLink('h', 1)).not.toBeNull();
    });
  });
}
