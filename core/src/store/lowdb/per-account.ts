// The one way every record family keeps its files: one document or one append-only log per
// account (data/<family>/<account>.json or .jsonl), read on first use and kept in memory for
// the next, so a write costs what that account keeps and never what other accounts keep.
// What stays is bounded by use, not by the accounts touched since the start: the logs' open
// files share the store's budget (open-files-budget.ts), and each family keeps at most
// `maxResident` idle accounts in memory (account-cache.ts), reading an account dropped from
// it again at its next use. Values are reached only through `use` (or `read`/`mutate`, which
// use it), which holds the account in memory until the caller is done with it.
import path from 'node:path';
import type { z } from 'zod';
import type { KeyedLock } from '../../concurrency/keyed-lock';
import { type AppendLog, createAppendLog } from '../append-log';
import type { OpenFilesBudget } from '../open-files-budget';
import { type AccountCache, createAccountCache } from './account-cache';
import type { Doc, Documents } from './documents-engine';
import { documentIds, fileSafe } from './files';

/**
 * Where the store keeps its files, how durably, the lock its compound writes share, how many
 * logs may hold their file open, how many idle accounts each family keeps in memory, and
 * where each family says how many it has (`resident`, by family).
 */
export type StoreContext = {
  root: string;
  fsync: boolean;
  documents: Documents;
  lock: KeyedLock;
  openFiles?: OpenFilesBudget;
  maxResident: number;
  resident: Map<string, () => number>;
};

type Use<T> = AccountCache<T>['use'];

/** A document per account: data/<family>/<account>.json, `empty` until first written. */
export function accountDocuments<T>(ctx: StoreContext, family: string, schema: z.ZodType<T>, empty: T) {
  const dir = path.join(ctx.root, family);
  const cache = createAccountCache<Doc<T>>({
    max: ctx.maxResident,
    open: (accountId) => ctx.documents.open(path.join(dir, `${fileSafe(accountId)}.json`), schema, empty),
    // A write queued, under way or computed but not yet written would be lost with the copy.
    idle: (doc) => doc.open === null && !doc.writing && doc.draft === null,
  });
  ctx.resident.set(family, cache.resident);
  const use: Use<Doc<T>> = cache.use;
  /** The committed document (frozen: safe to keep after the account left memory). */
  const read = (accountId: string): Promise<T> => use(accountId, (doc) => doc.db.data);
  /** `documents.mutate` on the account's document, held in memory until written. */
  const mutate = <R>(accountId: string, fn: (data: T) => { data: T; result: R }): Promise<R> =>
    use(accountId, (doc) => ctx.documents.mutate(doc, fn));
  const indexOnce: IndexOnce<T> = async (lookups, index) => {
    if (lookups.existed) return;
    for (const accountId of documentIds(dir)) await index(accountId, await read(accountId));
  };
  return { use, read, mutate, indexOnce, resident: cache.resident };
}

/**
 * A data directory from before the lookup index (lookups.ts) has never been indexed: reads every
 * account's document on disk once, handing each to `index`; a no-op once the index exists.
 */
type IndexOnce<T> = (lookups: { existed: boolean }, index: (accountId: string, data: T) => Promise<void>) => Promise<void>;

/**
 * An append-only log per account: data/<family>/<account>.jsonl, read into whatever `load`
 * makes of it (the in-memory view the family serves reads from). An account dropped from
 * memory closes its file through the log's own queue; `close` closes every log.
 */
export function accountLogs<E, T extends { file: AppendLog<E> }>(
  ctx: StoreContext,
  family: string,
  schema: z.ZodType<E>,
  load: (file: AppendLog<E>, accountId: string) => Promise<T>,
) {
  const dir = path.join(ctx.root, family);
  const cache = createAccountCache<T>({
    max: ctx.maxResident,
    open: (accountId) =>
      load(
        createAppendLog(path.join(dir, `${fileSafe(accountId)}.jsonl`), schema, { fsync: ctx.fsync, openFiles: ctx.openFiles }),
        accountId,
      ),
    // A queued append, rewrite (a compaction started and not awaited) or close is under way.
    idle: (log) => log.file.idle(),
    release: (log) => log.file.close(),
  });
  ctx.resident.set(family, cache.resident);
  const use: Use<T> = cache.use;
  return {
    use,
    resident: cache.resident,
    close: async () => {
      // One still being read that fails holds no file.
      await Promise.all(
        cache.values().map((l) =>
          l.then(
            (log) => log.file.close(),
            () => undefined,
          ),
        ),
      );
      await cache.settled();
    },
  };
}
