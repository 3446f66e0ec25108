// The test keys' overlay, account by account: each account's changes live in one
// AccountOverlay, made on its first write and dropped after `idleMs` without one (checked on
// read, and swept at most once a minute on write), so an idle account costs nothing.
import type { Clock } from '../clock/clock';
import type {
  AccountRecord,
  IdempotencyRecord,
  KeyRecord,
  LinkRecord,
  MemoryEntry,
  StandingRecord,
  StoredEvent,
  ThreadEntry,
  WalletRecord,
} from './documents';
import { createIntentIndex, type IntentIndex } from './intent-index';
import type { Changes } from './overlay-changes';

export type Records = {
  accounts: AccountRecord;
  keys: KeyRecord;
  memory: MemoryEntry;
  wallets: WalletRecord;
  standing: StandingRecord;
};
export type Family = keyof Records;

export type AccountOverlay = {
  lastWrite: number;
  records: { [F in Family]: Changes<Records[F]> };
  thread: ThreadEntry[];
  events: StoredEvent[];
  answers: Map<string, IdempotencyRecord>;
  intents: IntentIndex;
  links: Map<string, LinkRecord>;
};

const SWEEP_EVERY_MS = 60_000;

export function createOverlayAccounts({ clock, idleMs }: { clock: Clock; idleMs: number }) {
  const overlays = new Map<string, AccountOverlay>();
  let lastSweep = clock.now();

  const idle = (o: AccountOverlay) => clock.now() - o.lastWrite >= idleMs;

  /** The account's overlay for reading, or null: reads never make one. */
  function peek(accountId: string): AccountOverlay | null {
    const o = overlays.get(accountId);
    if (o && idle(o)) {
      overlays.delete(accountId);
      return null;
    }
    return o ?? null;
  }

  /** The account's overlay for writing: made on the first write; every write restarts its idle time. */
  function own(accountId: string): AccountOverlay {
    const now = clock.now();
    if (now - lastSweep >= SWEEP_EVERY_MS) {
      lastSweep = now;
      for (const [id, o] of overlays) if (idle(o)) overlays.delete(id);
    }
    let o = peek(accountId);
    if (!o) {
      o = {
        lastWrite: now,
        records: { accounts: new Map(), keys: new Map(), memory: new Map(), wallets: new Map(), standing: new Map() },
        thread: [],
        events: [],
        answers: new Map(),
        intents: createIntentIndex(),
        links: new Map(),
      };
      overlays.set(accountId, o);
    }
    o.lastWrite = now;
    return o;
  }

  function* active(): Generator<AccountOverlay> {
    for (const id of [...overlays.keys()]) {
      const o = peek(id);
      if (o) yield o;
    }
  }

  return { peek, own, active, clear: () => overlays.clear() };
}
