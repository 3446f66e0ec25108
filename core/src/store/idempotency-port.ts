// The Idempotency-Key answers family of the store port (store-port.ts): what a repeated
// request is answered with. (Leases between servers are not kept here: idempotency/idempotency-leases.ts.)
import type { IdempotencyRecord } from './documents';

export interface IdempotencyPort {
  getIdempotencyRecord(accountId: string, key: string): Promise<IdempotencyRecord | null>;
  putIdempotencyRecord(accountId: string, record: IdempotencyRecord): Promise<void>;
  pruneIdempotency(olderThan: number): Promise<number>;
}
