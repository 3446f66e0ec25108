// The one way every record family keeps its files: one document or one append-only log per
// account (data/<family>/<account>.json or .jsonl), opened on first use and kept open, so a
// write costs what that account keeps and never what other accounts keep. The logs' open
// files share the store's budget (open-files-budget.ts): an account no longer active gives
// its descriptors back.
import path from 'node:path';
import type { z } from 'zod';
import type { KeyedLock } from '../../concurrency/keyed-lock';
import { type AppendLog, createAppendLog } from '../append-log';
import type { OpenFilesBudget } from '../open-files-budget';
import type { Doc, Documents } from './documents-engine';
import { documentIds, fileSafe } from './files';

/** Where the store keeps its files, how durably, the lock its compound writes share, and how many logs may hold their file open. */
export type StoreContext = { root: string; fsync: boolean; documents: Documents; lock: KeyedLock; openFiles?: OpenFilesBudget };

type PerAccount<T> = ((accountId: string) => Promise<T>) & {
  /** Everything opened so far. */
  opened(): Promise<T>[];
};

function perAccount<T>(open: (accountId: string) => Promise<T>): PerAccount<T> {
  const opened = new Map<string, Promise<T>>();
  const get = (accountId: string): Promise<T> => {
    let t = opened.get(accountId);
    if (!t) {
      t = open(fileSafe(accountId));
      opened.set(accountId, t);
    }
    return t;
  };
  return Object.assign(get, { opened: () => [...opened.values()] });
}

/** A document per account: data/<family>/<account>.json, `empty` until first written. */
export function accountDocuments<T>(
  ctx: StoreContext,
  family: string,
  schema: z.ZodType<T>,
  empty: T,
): PerAccount<Doc<T>> & { indexOnce: IndexOnce<T> } {
  const dir = path.join(ctx.root, family);
  const docs = perAccount((accountId) => ctx.documents.open(path.join(dir, `${accountId}.json`), schema, empty));
  const indexOnce: IndexOnce<T> = async (lookups, index) => {
    if (lookups.existed) return;
    for (const accountId of documentIds(dir)) await index(accountId, (await docs(accountId)).db.data);
  };
  return Object.assign(docs, { indexOnce });
}

/**
 * A data directory from before the lookup index (lookups.ts) has never been indexed: reads every
 * account's document on disk once, handing each to `index`; a no-op once the index exists.
 */
type IndexOnce<T> = (lookups: { existed: boolean }, index: (accountId: string, data: T) => Promise<void>) => Promise<void>;

/**
 * An append-only log per account: data/<family>/<account>.jsonl, read into whatever `load`
 * makes of it (the in-memory view the family serves reads from). `close` closes every log.
 */
export function accountLogs<E, T extends { file: AppendLog<E> }>(
  ctx: StoreContext,
  family: string,
  schema: z.ZodType<E>,
  load: (file: AppendLog<E>, accountId: string) => Promise<T>,
): PerAccount<T> & { close(): Promise<void> } {
  const dir = path.join(ctx.root, family);
  const logs = perAccount((accountId) =>
    load(createAppendLog(path.join(dir, `${accountId}.jsonl`), schema, { fsync: ctx.fsync, openFiles: ctx.openFiles }), accountId),
  );
  return Object.assign(logs, {
    close: async () => {
      await Promise.all(logs.opened().map(async (l) => (await l).file.close()));
    },
  });
}
