// Which of the store's operations only read and which change what is kept, said once for every
// part that treats the two apart: PostgreSQL runs a read cut by a lost connection again (never a
// write: whether it committed is unknown), and /metrics times the writes. Keyed by the port, so
// a new operation does not compile until it is classed here.
import type { StoreOps } from './store-port';

const KIND: Record<keyof StoreOps, 'read' | 'write'> = {
  createAccount: 'write',
  getAccount: 'read',
  listAccounts: 'read',
  updateAccount: 'write',
  insertKey: 'write',
  getKey: 'read',
  findKeyBySecretHash: 'read',
  listKeys: 'read',
  updateKey: 'write',
  readMemory: 'read',
  peekMemory: 'read',
  changeMemory: 'write',
  memoryDue: 'read',
  appendEvent: 'write',
  eventsAfter: 'read',
  eventBounds: 'read',
  pruneEvents: 'write',
  pruneEventsOlderThan: 'write',
  getIdempotencyRecord: 'read',
  putIdempotencyRecord: 'write',
  pruneIdempotency: 'write',
  getWallet: 'read',
  createWallet: 'write',
  markWalletFunded: 'write',
  createIntent: 'write',
  getIntent: 'read',
  findIntentByConfirmId: 'read',
  findIntentByIdempotencyKey: 'read',
  transitionIntent: 'write',
  listIntents: 'read',
  heldCount: 'read',
  spentSince: 'read',
  intentsInStates: 'read',
  dueHolds: 'read',
  appendThread: 'write',
  readThread: 'read',
  pruneThread: 'write',
  putStanding: 'write',
  listStanding: 'read',
  dueStanding: 'read',
  updateStanding: 'write',
  putLink: 'write',
  redeemLink: 'write',
  countOutstandingLinks: 'read',
};

const named = (kind: 'read' | 'write'): ReadonlySet<string> =>
  new Set(Object.entries(KIND).flatMap(([name, k]) => (k === kind ? [name] : [])));

/** The operations that only read. */
export const STORE_READS = named('read');
/** The operations that change what is kept. */
export const STORE_WRITES = named('write');
