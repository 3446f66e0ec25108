// Rotating the master key: every secret sealed under the old key (wallet keys, stored
// Idempotency-Key answers) is opened and sealed again under the new one, record by record,
// each record written on its own. Safe to run again after a crash midway: a record that
// already opens with the new key is left alone, and the check value says "rotating from A to
// B" until the last record is done, so no server starts with either key meanwhile.
// Link codes are MACed under a subkey of the master key and cannot be re-hashed (only their
// hashes are kept): codes outstanding at the rotation stop redeeming; make new ones.
import type { Keystore } from '../keystore/keystore';
import type { StoredIdempotencyRecord, WalletRecord } from './documents';
import { type MasterKeyCheckPort, MasterKeyMismatch, masterKeyCheckValue } from './master-key-check';
import { createSealedAnswers } from './sealed-answers';

export type ResealCounts = { wallets: number; answers: number };

/** Re-seals one record at a time: null when it is already under the new key. */
export type Resealer = ReturnType<typeof createResealer>;

export function createResealer(from: Keystore, to: Keystore) {
  const oldAnswers = createSealedAnswers(from);
  const newAnswers = createSealedAnswers(to);
  const opens = (f: () => unknown) => {
    try {
      f();
      return true;
    } catch {
      return false;
    }
  };
  return {
    wallet(w: WalletRecord): WalletRecord | null {
      if (opens(() => to.open(w.account_id, w.address, w.key))) return null;
      return { ...w, key: to.seal(w.account_id, w.address, from.open(w.account_id, w.address, w.key)) };
    },
    answer(accountId: string, r: StoredIdempotencyRecord): StoredIdempotencyRecord | null {
      if (!('sealed' in r) || opens(() => newAnswers.open(accountId, r))) return null;
      return newAnswers.seal(accountId, oldAnswers.open(accountId, r));
    },
  };
}

export type RotationResult = { counts: ResealCounts | null };

/**
 * Runs (or finishes) a rotation from `from` to `to`; `resealAll` goes over every record of the
 * store. Answers counts: null when the store was already under the new key.
 */
export async function rotateMasterKey({
  check,
  from,
  to,
  resealAll,
}: {
  check: MasterKeyCheckPort;
  from: Keystore;
  to: Keystore;
  resealAll: (resealer: Resealer) => Promise<ResealCounts>;
}): Promise<RotationResult> {
  const fromValue = masterKeyCheckValue(from);
  const toValue = masterKeyCheckValue(to);
  const stored = await check.read();
  if (stored?.check === toValue && stored.rotating_to === undefined) return { counts: null };
  if (fromValue === toValue) throw new MasterKeyMismatch('the new key is the key in use: nothing to rotate');
  if (stored && !(stored.check === fromValue && (stored.rotating_to ?? toValue) === toValue)) {
    throw new MasterKeyMismatch(
      stored.check !== fromValue
        ? 'it is not the key this store’s secrets are sealed with'
        : 'a rotation to another new key is under way: run it again with that key as PRESENCE_NEW_MASTER_KEY',
    );
  }
  await check.write({ check: fromValue, rotating_to: toValue });
  const counts = await resealAll(createResealer(from, to));
  await check.write({ check: toValue });
  return { counts };
}
