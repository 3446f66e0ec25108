// Idempotency answers sealed at rest: an answer can carry a secret (a new key's secret, a
// rotated secret, a link code) that must not sit in a file or a table for 24 h in the clear.
// The associated data binds a ciphertext to its account, key and request, so a body moved to
// another record does not open. Shared by the store adapters so both seal alike (the
// PostgreSQL adapter uses it; the embedded one has the same code inline until its split).
import { createHash } from 'node:crypto';
import type { Keystore } from '../keystore/keystore';
import type { IdempotencyRecord, StoredIdempotencyRecord } from './documents';

export type SealedAnswers = ReturnType<typeof createSealedAnswers>;

export function createSealedAnswers(keystore: Keystore | undefined) {
  const answerContext = (accountId: string, r: { key: string; fingerprint: string }) =>
    `presence-idempotency:${accountId}:${createHash('sha256').update(r.key).update('\0').update(r.fingerprint).digest('hex')}`;
  const needKeystore = () => {
    if (!keystore) throw new Error('this store has no keystore: Idempotency-Key answers are only kept sealed');
    return keystore;
  };
  return {
    seal: (accountId: string, { body, ...rest }: IdempotencyRecord): StoredIdempotencyRecord => ({
      ...rest,
      sealed: needKeystore().sealText(answerContext(accountId, rest), body),
    }),
    /** Opens a stored answer; one stored in the clear (by an earlier version) passes as it is. */
    open: (accountId: string, r: StoredIdempotencyRecord): IdempotencyRecord => {
      if (!('sealed' in r)) return r;
      const { sealed, ...rest } = r;
      return { ...rest, body: needKeystore().openText(answerContext(accountId, rest), sealed) };
    },
  };
}
