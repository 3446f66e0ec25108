// What every family of the test keys' overlay works with (overlay-store.ts composes them): the
// live store it reads through, the accounts' overlays it writes to, its cap, one keyed lock,
// and the read-modify-write of one overlaid record.
import { createKeyedLock } from '../concurrency/keyed-lock';
import type { Family, OverlayAccounts, Records } from './overlay-accounts';
import { applied, type Changes, changeFrom, remember } from './overlay-changes';
import type { StorePort } from './store-port';

export type OverlayContext = Pick<OverlayAccounts, 'peek' | 'own' | 'active' | 'nextEventId' | 'latestEventId'> & {
  live: StorePort;
  /** Per account and family: changed records, thread entries, events, intents, answers, link codes. */
  maxRecords: number;
  lock: ReturnType<typeof createKeyedLock>;
  /** The account's changes to one family's records, if it made any. */
  changesOf<F extends Family>(accountId: string, family: F): Changes<Records[F]> | undefined;
  /** Read-modify-write of one record under the family's lock for the account (the port's promise). */
  updateRecord<F extends Family, R>(
    accountId: string,
    family: F,
    id: string,
    readLive: () => Promise<Records[F] | null>,
    update: (current: Records[F] | null) => { next: Records[F] | null; result: R },
  ): Promise<R>;
};

export function createOverlayContext(live: StorePort, accounts: OverlayAccounts, maxRecords: number): OverlayContext {
  const lock = createKeyedLock();
  const { peek, own } = accounts;

  const changesOf = <F extends Family>(accountId: string, family: F): Changes<Records[F]> | undefined =>
    peek(accountId)?.records[family] as Changes<Records[F]> | undefined;

  return {
    live,
    maxRecords,
    lock,
    peek,
    own,
    active: accounts.active,
    nextEventId: accounts.nextEventId,
    latestEventId: accounts.latestEventId,
    changesOf,
    updateRecord(accountId, family, id, readLive, update) {
      return lock(`${family}:${accountId}`, async () => {
        const base = await readLive();
        const current = applied(base, changesOf(accountId, family)?.get(id));
        const { next, result } = update(current);
        const change = changeFrom(base, next);
        if (change || changesOf(accountId, family)?.has(id)) {
          remember(own(accountId).records[family] as Changes<Records[typeof family]>, id, change, maxRecords);
        }
        return result;
      });
    },
  };
}
