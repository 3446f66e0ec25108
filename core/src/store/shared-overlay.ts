// Test keys on many servers: the overlay (overlay-store.ts) shared through the database, so
// any server answers a test key's reads with what a test key wrote through another. Each
// account's overlay travels whole, as one bounded snapshot (the overlay's caps bound it:
// `maxRecords` changes per family), with a version: before a store call for an account this
// server takes the newer snapshot if there is one; a write runs with the account's shared
// row locked (so two servers' writes to one account's overlay take turns) and stores the
// snapshot it leaves. Accounts without test-key writes cost one indexed read per test-key
// call and nothing else. Only calls that name their account are shared; the rest (a key
// looked up by id or hash, the background sweeps over every account) see this server's.
import { createKeyedLock } from '../concurrency/keyed-lock';
import { immediateUnits } from './immediate-units';
import type { OverlayAccounts, OverlaySnapshot } from './overlay-accounts';
import type {
  AccountsPort,
  EmbeddedStore,
  EventsPort,
  IdempotencyPort,
  IntentsPort,
  KeysPort,
  LinksPort,
  MemoryPort,
  StandingPort,
  StoreOps,
  ThreadPort,
  WalletsPort,
} from './store-port';

/** Where servers keep the shared overlays: the PostgreSQL adapter's `test_overlays` table. */
export type OverlayShare = {
  /** The account's overlay if its version is newer than `version`, else null. */
  read(accountId: string, version: number): Promise<{ version: number; snapshot: OverlaySnapshot | null } | null>;
  /** Runs `write` with the account's shared overlay locked; stores the snapshot it answers and bumps the version. */
  update<T>(
    accountId: string,
    write: (current: { version: number; snapshot: OverlaySnapshot | null }) => Promise<{ snapshot: OverlaySnapshot | null; result: T }>,
  ): Promise<{ version: number; result: T }>;
  /** Its owner's to call (the server's shutdown), like the live store's. */
  close(): Promise<void>;
};

type Method = keyof StoreOps;
type AccountOf = (args: unknown[]) => string | undefined;

const first: AccountOf = (args) => (typeof args[0] === 'string' ? args[0] : undefined);
const field =
  (name: 'id' | 'account_id'): AccountOf =>
  (args) =>
    (args[0] as Record<string, string> | undefined)?.[name];

/**
 * How one family's calls are shared: those that read one account's overlay (its id the first
 * argument), and those that change it, with how to find the account in their arguments.
 */
type FamilySharing<P> = { reads: readonly (keyof P)[]; writes: { [M in keyof P]?: AccountOf } };

const accounts: FamilySharing<AccountsPort> = { reads: ['getAccount'], writes: { createAccount: field('id'), updateAccount: first } };
const keys: FamilySharing<KeysPort> = { reads: ['listKeys'], writes: { insertKey: field('account_id') } };
const memory: FamilySharing<MemoryPort> = { reads: ['readMemory', 'peekMemory'], writes: { changeMemory: first } };
const events: FamilySharing<EventsPort> = { reads: ['eventsAfter', 'eventBounds'], writes: { appendEvent: first, pruneEvents: first } };
const idempotency: FamilySharing<IdempotencyPort> = { reads: ['getIdempotencyRecord'], writes: { putIdempotencyRecord: first } };
const wallets: FamilySharing<WalletsPort> = {
  reads: ['getWallet'],
  writes: { createWallet: field('account_id'), markWalletFunded: first },
};
const intents: FamilySharing<IntentsPort> = {
  reads: ['getIntent', 'findIntentByConfirmId', 'findIntentByIdempotencyKey', 'listIntents', 'heldCount', 'spentSince'],
  writes: { createIntent: field('account_id'), transitionIntent: first },
};
const thread: FamilySharing<ThreadPort> = { reads: ['readThread'], writes: { appendThread: first, pruneThread: first } };
const standing: FamilySharing<StandingPort> = {
  reads: ['listStanding'],
  writes: { putStanding: field('account_id'), updateStanding: first },
};
const links: FamilySharing<LinksPort> = { reads: ['countOutstandingLinks'], writes: { putLink: field('account_id') } };

const FAMILIES = [accounts, keys, memory, events, idempotency, wallets, intents, thread, standing, links] as FamilySharing<StoreOps>[];
/** Calls that read one account's overlay. */
const READS: Method[] = FAMILIES.flatMap((f) => [...f.reads]);
/** Calls that change an account's overlay, and how to find the account in their arguments. */
const WRITES = FAMILIES.flatMap((f) => Object.entries(f.writes) as [Method, AccountOf][]);

export function shareOverlay(overlay: EmbeddedStore, accounts: OverlayAccounts, share: OverlayShare): EmbeddedStore {
  const versions = new Map<string, number>();
  const lock = createKeyedLock();
  const take = (accountId: string, version: number, snapshot: OverlaySnapshot | null) => {
    accounts.load(accountId, snapshot);
    versions.set(accountId, version);
  };

  const read = <R>(accountId: string, call: () => Promise<R>) =>
    lock(accountId, async () => {
      const newer = await share.read(accountId, versions.get(accountId) ?? 0);
      if (newer) take(accountId, newer.version, newer.snapshot);
      return call();
    });

  const write = <R>(accountId: string, call: () => Promise<R>) =>
    lock(accountId, async () => {
      const { version, result } = await share.update(accountId, async (current) => {
        if (current.version !== (versions.get(accountId) ?? 0)) take(accountId, current.version, current.snapshot);
        const result = await call();
        return { snapshot: accounts.snapshot(accountId), result };
      });
      versions.set(accountId, version);
      return result;
    });

  const shared = { ...overlay } as Record<Method, unknown>;
  for (const method of READS) {
    const inner = overlay[method] as (...args: unknown[]) => Promise<unknown>;
    shared[method] = (...args: unknown[]) => {
      const accountId = first(args);
      return accountId === undefined ? inner(...args) : read(accountId, () => inner(...args));
    };
  }
  for (const [method, accountOf] of WRITES) {
    const inner = overlay[method] as (...args: unknown[]) => Promise<unknown>;
    shared[method] = (...args: unknown[]) => {
      const accountId = accountOf(args);
      return accountId === undefined ? inner(...args) : write(accountId, () => inner(...args));
    };
  }
  const ops = shared as unknown as StoreOps;
  // Each call is shared as it resolves: a unit is these calls, and nothing waits for a commit.
  return { ...(shared as unknown as EmbeddedStore), atomically: immediateUnits(ops) };
}
