// lowdb JSON documents written durably with group commit. Every mutation works on a copy of
// the newest version and is published (swapped into `db.data`) only after a write that
// contains it succeeded, so readers only ever see committed documents. A mutation's function
// runs synchronously, so mutations of one document never interleave; mutations made while a
// write is under way are written together next (one temp file, two fsyncs, for all of them).
// Committed documents are frozen, which lets reads hand them out without a defensive copy.
import { Low } from 'lowdb';
import type { z } from 'zod';
import { writeFileAtomic } from '../durable-file';
import { readJson } from './files';

/** One write of a document, shared by every mutation made while the previous write ran. */
type Batch<T> = { data: T; done: Promise<void>; resolve: () => void; reject: (e: unknown) => void };

export type Doc<T> = {
  /** `db.data` is the committed document: the only version readers see. */
  db: Low<T>;
  /** The newest version, committed or not: what the next mutation builds on. */
  draft: T | null;
  /** Mutations waiting for the next write (the current one, if any, is already under way). */
  open: Batch<T> | null;
  writing: boolean;
};

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export type Documents = ReturnType<typeof createDocuments>;

export function createDocuments({ fsync }: { fsync: boolean }) {
  const writes = new Set<Promise<void>>();

  /** Writes the open batch, and whatever batches open meanwhile, one write at a time. */
  async function flush<T>(doc: Doc<T>) {
    if (doc.writing) return;
    doc.writing = true;
    for (let batch = doc.open; batch; batch = doc.open) {
      doc.open = null;
      try {
        await doc.db.adapter.write(batch.data);
      } catch (e) {
        // Mutations waiting for the next write were computed from this failed version, so
        // they fail with it; the next mutation starts again from the committed document.
        const later = doc.open as Batch<T> | null;
        doc.open = null;
        doc.draft = null;
        batch.reject(e);
        later?.reject(e);
        break;
      }
      doc.db.data = batch.data;
      if (doc.draft === batch.data) doc.draft = null;
      batch.resolve();
    }
    doc.writing = false;
  }

  return {
    /** Reads `file` (lowdb's JSONFile format; absent: `empty`), validated by `schema`. */
    async open<T>(file: string, schema: z.ZodType<T>, empty: T): Promise<Doc<T>> {
      // Written durably: steno's writer, lowdb's default, renames without any fsync.
      const db = new Low<T>(
        {
          read: async () => (await readJson(file)) as T | null,
          write: (data) => writeFileAtomic(file, JSON.stringify(data, null, 2), { fsync }),
        },
        empty,
      );
      await db.read();
      db.data = deepFreeze(schema.parse(db.data));
      return { db, draft: null, open: null, writing: false };
    },

    /** Applies `fn` to the newest version; resolves with its result once that is on disk. */
    async mutate<T, R>(doc: Doc<T>, fn: (data: T) => { data: T; result: R }): Promise<R> {
      const { data: draft, result } = fn(structuredClone(doc.draft ?? doc.db.data));
      const data = deepFreeze(draft);
      doc.draft = data;
      let batch = doc.open;
      if (!batch) {
        let resolve!: () => void;
        let reject!: (e: unknown) => void;
        const done = new Promise<void>((res, rej) => {
          resolve = res;
          reject = rej;
        });
        batch = { data, done, resolve, reject };
        doc.open = batch;
        const settled = done.catch(() => undefined);
        writes.add(settled);
        void settled.then(() => writes.delete(settled));
        void flush(doc);
      }
      batch.data = data;
      await batch.done;
      return result;
    },

    /** Resolves when every write under way has settled. */
    async settled() {
      await Promise.all(writes);
    },
  };
}
