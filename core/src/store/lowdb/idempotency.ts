// Idempotency-Key answers: an append-only log per account (data/idempotency/<account>.jsonl).
// Answers are kept as written to disk (body sealed under the master key: they can carry a new
// key's secret or a link code) and opened on a hit. The associated data binds a ciphertext to
// its account, key and request, so a body moved to another record does not open.
import { createHash } from 'node:crypto';
import type { Keystore } from '../../keystore/keystore';
import { type IdempotencyRecord, StoredIdempotencyRecord } from '../documents';
import type { IdempotencyPort } from '../idempotency-port';
import type { Agenda } from './agenda';
import { accountLogs, type StoreContext } from './per-account';

const oldestOf = (byKey: ReadonlyMap<string, StoredIdempotencyRecord>): number | null => {
  let min: number | null = null;
  for (const r of byKey.values()) if (min === null || r.created_at < min) min = r.created_at;
  return min;
};

export type IdempotencyFamily = IdempotencyPort & {
  close(): Promise<void>;
};

/**
 * Without a keystore the store refuses to keep answers. The agenda keeps each account's oldest
 * answer time ('idempotency'), so pruning opens only accounts with answers old enough; it is
 * written beside the account's first answer (a crash in between delays pruning until its next).
 */
export function openIdempotency(ctx: StoreContext, keystore: Keystore | undefined, agenda: Agenda): IdempotencyFamily {
  const answerContext = (accountId: string, r: { key: string; fingerprint: string }) =>
    `presence-idempotency:${accountId}:${createHash('sha256').update(r.key).update('\0').update(r.fingerprint).digest('hex')}`;
  const needKeystore = () => {
    if (!keystore) throw new Error('this store has no keystore: Idempotency-Key answers are only kept sealed');
    return keystore;
  };
  const sealAnswer = (accountId: string, { body, ...rest }: IdempotencyRecord): StoredIdempotencyRecord => ({
    ...rest,
    sealed: needKeystore().sealText(answerContext(accountId, rest), body),
  });
  const openAnswer = (accountId: string, r: StoredIdempotencyRecord): IdempotencyRecord => {
    if (!('sealed' in r)) return r;
    const { sealed, ...rest } = r;
    return { ...rest, body: needKeystore().openText(answerContext(accountId, rest), sealed) };
  };

  const idemLog = accountLogs(ctx, 'idempotency', StoredIdempotencyRecord, async (file, accountId) => {
    const log = { file, byKey: new Map<string, StoredIdempotencyRecord>() };
    let plain = false;
    for (const r of await file.readAll()) {
      log.byKey.set(r.key, r);
      plain ||= !('sealed' in r);
    }
    // Answers stored in the clear by an earlier version are sealed once, at first use.
    if (plain && keystore) {
      const sealed = [...log.byKey.values()].map((r) => ('sealed' in r ? r : sealAnswer(accountId, r)));
      await file.rewrite(
        () => sealed,
        (kept) => {
          log.byKey = new Map(kept.map((r) => [r.key, r]));
        },
      );
    }
    return log;
  });

  return {
    close: idemLog.close,
    async getIdempotencyRecord(accountId, key) {
      const r = await idemLog.use(accountId, (log) => log.byKey.get(key));
      return r ? openAnswer(accountId, r) : null;
    },
    putIdempotencyRecord: (accountId, record) =>
      idemLog.use(accountId, async (log) => {
        const stored = sealAnswer(accountId, record);
        if (!agenda.has('idempotency', accountId))
          void agenda.set('idempotency', accountId, oldestOf(log.byKey) ?? stored.created_at).catch(() => undefined);
        await log.file.append([stored], () => {
          log.byKey.set(stored.key, stored);
        });
      }),
    async pruneIdempotency(olderThan) {
      let dropped = 0;
      for (const accountId of agenda.due('idempotency', olderThan)) {
        await idemLog.use(accountId, async (log) => {
          // Compute, rewrite and swap all happen inside the log's rewrite, which is ordered
          // with its appends: a record put meanwhile is either committed (and kept here) or
          // appended to the new file afterwards, never lost (a lost record would let a
          // client's retry run its action a second time).
          await log.file.rewrite(
            () => {
              const kept = [...log.byKey.values()].filter((r) => r.created_at >= olderThan);
              return kept.length === log.byKey.size ? null : kept;
            },
            (kept) => {
              dropped += log.byKey.size - kept.length;
              log.byKey = new Map(kept.map((r) => [r.key, r]));
            },
          );
          await agenda.set('idempotency', accountId, oldestOf(log.byKey));
        });
      }
      return dropped;
    },
  };
}
