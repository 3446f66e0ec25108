// The test keys' overlay, account by account: each account's changes live in one
// AccountOverlay, made on its first write and dropped after `idleMs` without one (checked on
// read, and swept at most once a minute on write), so an idle account costs nothing. An
// account's overlay also goes out and comes in whole as plain JSON (`snapshot`, `load`), for
// servers that share it through their database (shared-overlay.ts).
import type { Clock } from '../clock/clock';
import type {
  AccountRecord,
  IdempotencyRecord,
  IntentRecord,
  KeyRecord,
  LinkRecord,
  MemoryEntry,
  StandingRecord,
  StoredEvent,
  ThreadEntry,
  WalletRecord,
} from './documents';
import { createIntentIndex, type IntentIndex } from './intent-index';
import { type Change, type Changes, freeze } from './overlay-changes';

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

/** One account's overlay as JSON: what servers sharing the overlay hand each other. */
export type OverlaySnapshot = {
  lastWrite: number;
  /** The newest event id handed out (ids outlive an expired overlay). */
  latestEventId: number;
  records: { [F in Family]: [string, Change<Records[F]>][] };
  thread: ThreadEntry[];
  events: StoredEvent[];
  answers: [string, IdempotencyRecord][];
  intents: IntentRecord[];
  links: [string, LinkRecord][];
};

export type OverlayAccounts = ReturnType<typeof createOverlayAccounts>;

const SWEEP_EVERY_MS = 60_000;
const FAMILIES: Family[] = ['accounts', 'keys', 'memory', 'wallets', 'standing'];

export function createOverlayAccounts({ clock, idleMs }: { clock: Clock; idleMs: number }) {
  const overlays = new Map<string, AccountOverlay>();
  /** Event ids outlive an expired overlay: a test stream still open must never see an id twice. */
  const eventIds = new Map<string, number>();
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

  function nextEventId(accountId: string): number {
    const id = (eventIds.get(accountId) ?? 0) + 1;
    eventIds.set(accountId, id);
    return id;
  }

  function snapshot(accountId: string): OverlaySnapshot | null {
    const o = peek(accountId);
    if (!o) return null;
    const records = Object.fromEntries(FAMILIES.map((f) => [f, [...o.records[f]]])) as OverlaySnapshot['records'];
    const { lastWrite, thread, events } = o;
    const latestEventId = eventIds.get(accountId) ?? 0;
    return { lastWrite, latestEventId, records, thread, events, answers: [...o.answers], intents: o.intents.list(), links: [...o.links] };
  }

  /** Replaces the account's overlay with `s` (another server's newer one); null drops it. */
  function load(accountId: string, s: OverlaySnapshot | null): void {
    if (!s) {
      overlays.delete(accountId);
      return;
    }
    eventIds.set(accountId, Math.max(eventIds.get(accountId) ?? 0, s.latestEventId));
    // Reads hand out immutable records, as the port promises; the lists themselves stay ours to grow.
    for (const f of FAMILIES) for (const [, c] of s.records[f]) freeze(c);
    for (const list of [s.thread, s.events, s.intents, s.answers, s.links]) for (const x of list) freeze(x);
    const intents = createIntentIndex();
    for (const r of s.intents) intents.put(r);
    const records = Object.fromEntries(FAMILIES.map((f) => [f, new Map<string, unknown>(s.records[f])])) as AccountOverlay['records'];
    overlays.set(accountId, {
      lastWrite: s.lastWrite,
      records,
      thread: s.thread,
      events: s.events,
      answers: new Map(s.answers),
      intents,
      links: new Map(s.links),
    });
  }

  return {
    peek,
    own,
    active,
    nextEventId,
    latestEventId: (accountId: string) => eventIds.get(accountId) ?? 0,
    snapshot,
    load,
    clear: () => overlays.clear(),
  };
}
