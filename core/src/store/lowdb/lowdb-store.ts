// The embedded store: lowdb JSON documents for small, bounded state and append-only JSON-lines
// logs for what only grows (events, thread, intents, idempotency answers), all under
// <dataDir>/data, one module per record family. lowdb's `data` never leaves this folder.
//
// Every account's records live in documents and logs of its own (data/<family>/<account>),
// so a write costs what that account keeps, never what other accounts keep. What is shared is
// append-only and small per account: the account index (accounts.jsonl), the lookup of keys and
// link codes by hash (lookups.jsonl) and the agenda of due work (agenda.jsonl). An account's
// own files stay closed until it is used, so a start and an idle server cost what the active
// accounts keep, never what every account keeps (DESIGN.md, "Cost follows work").
//
// An answered write is on disk: documents are replaced by temp file + fsync + rename +
// directory fsync, appended lines are fdatasync'ed, both before the write resolves. Both
// group-commit (concurrent writes share one sync) so durability does not cost throughput
// linearly, and both publish to readers only after the write succeeded.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createKeyedLock } from '../../concurrency/keyed-lock';
import type { Keystore } from '../../keystore/keystore';
import { PRIVATE_DIR } from '../durable-file';
import { immediateUnits } from '../immediate-units';
import { createOpenFilesBudget } from '../open-files-budget';
import type { EmbeddedStore, StoreOps } from '../store-port';
import { openAccounts } from './accounts';
import { openAgenda } from './agenda';
import { createDocuments } from './documents-engine';
import { openEvents } from './events';
import { openIdempotency } from './idempotency';
import { indexDueWork } from './index-due-work';
import { openIntents } from './intents';
import { openKeys } from './keys';
import { openLinks } from './links';
import { openLookups } from './lookups';
import { openMemory } from './memory';
import { migrateSharedDocuments } from './migrate-shared-documents';
import type { StoreContext } from './per-account';
import { openStanding } from './standing';
import { openThread } from './thread';
import { openWallets } from './wallets';

const FAMILIES = ['accounts', 'keys', 'wallets', 'links', 'memory', 'events', 'idempotency', 'intents', 'thread', 'standing'];

/**
 * The per-account logs (events, thread, intents, idempotency answers, memory) that may hold
 * their file open at once: about 25 accounts writing at the same moment keep theirs; the rest
 * open and close around a write. Within the descriptors the server keeps aside for files
 * (FD_RESERVE in server/src/connection-limits.ts).
 */
export const MAX_OPEN_ACCOUNT_LOGS = 128;

/**
 * The idle accounts each record family keeps in memory (its document, or its log's view: up
 * to 10,000 thread entries and as many events): past it the least recently used one is
 * dropped and read from disk again at its next use. Twice the open logs, so an account whose
 * file was closed is usually still in memory; an account in use is never dropped.
 */
export const MAX_RESIDENT_ACCOUNTS = 256;

export type LowdbStoreOptions = {
  dataDir: string;
  /** fsync every write before answering (the default). Only throwaway data (seeding a benchmark) may turn it off. */
  fsync?: boolean;
  /**
   * Seals stored Idempotency-Key answers at rest under the master key (they can carry a new
   * key's secret or a link code). Without it the store refuses to keep answers.
   */
  keystore?: Keystore;
  /** How many idle accounts each family keeps in memory (MAX_RESIDENT_ACCOUNTS); tests set a few. */
  maxResidentAccounts?: number;
};

/** The embedded store, and how many accounts each of its families holds in memory (for tests and diagnostics). */
export type LowdbStore = EmbeddedStore & { residentAccounts(): Record<string, number> };

export async function createLowdbStore({
  dataDir,
  fsync = true,
  keystore,
  maxResidentAccounts = MAX_RESIDENT_ACCOUNTS,
}: LowdbStoreOptions): Promise<LowdbStore> {
  const root = path.join(dataDir, 'data');
  for (const dir of ['', ...FAMILIES]) mkdirSync(path.join(root, dir), { recursive: true, mode: PRIVATE_DIR });
  await migrateSharedDocuments(root, { fsync });
  const openFiles = createOpenFilesBudget(MAX_OPEN_ACCOUNT_LOGS);
  const documents = createDocuments({ fsync });
  const resident = new Map<string, () => number>();
  const ctx: StoreContext = { root, fsync, documents, lock: createKeyedLock(), openFiles, maxResident: maxResidentAccounts, resident };

  const { ids: accountIds, close: closeAccounts, ...accounts } = await openAccounts(ctx);
  const agenda = await openAgenda(root, { fsync });
  const lookups = await openLookups(root, { fsync });
  // The append-only families hold open files; close() closes them.
  const events = openEvents(ctx, agenda);
  const idempotency = openIdempotency(ctx, keystore, agenda);
  const intents = openIntents(ctx, agenda, accountIds);
  const thread = openThread(ctx);
  const memory = openMemory(ctx, agenda);
  const standing = openStanding(ctx, agenda);
  const keys = await openKeys(ctx, lookups);
  const links = await openLinks(ctx, lookups);
  if (!lookups.existed) await lookups.markIndexed();
  if (!agenda.existed) await indexDueWork(agenda, accountIds(), { events, idempotency, intents, memory, standing });
  const ops: StoreOps = {
    ...accounts,
    ...keys,
    ...memory,
    ...events,
    ...idempotency,
    ...openWallets(ctx),
    ...intents,
    ...thread,
    ...standing,
    ...links,
  };
  return {
    sharing: 'embedded',
    ...ops,
    // Each write is durable when it resolves: there is no transaction to join.
    atomically: immediateUnits(ops),
    residentAccounts: () => Object.fromEntries([...resident].map(([family, count]) => [family, count()])),
    async close() {
      await ctx.lock.drain();
      await ctx.documents.settled();
      await Promise.all([events, idempotency, intents, thread, memory, agenda, lookups].map((family) => family.close()));
      await openFiles.settled();
      await closeAccounts();
    },
  };
}
