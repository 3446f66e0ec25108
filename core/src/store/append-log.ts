// Append-only JSON-lines files for what only grows (events, thread, intents, idempotency
// answers). An append writes one line, so its cost does not depend on how much is already
// stored; compaction rewrites atomically (temp file + rename).
//
// Durability with group commit: an append resolves only after its line is written and, with
// `fsync` (the default), fdatasync'ed, so an answered write survives a power loss, not just a
// process crash. Appends that arrive while a batch is being written wait and go out together
// in the next batch, behind one write and one fdatasync: under concurrency the cost of the
// sync is shared instead of paid once per line.
import { mkdirSync, writeSync } from 'node:fs';
import { appendFile, type FileHandle, open, readFile, truncate } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { PRIVATE_DIR, PRIVATE_FILE, writeFileAtomic } from './durable-file';
import type { FileHolder, OpenFilesBudget } from './open-files-budget';

/** A whole line that is JSON but not of the log's schema: its number (from 1), its text and zod's error. */
export type Misfit = { line: number; text: string; error: unknown };

export interface AppendLog<T> {
  /**
   * The entries, in order. A last line that is not whole is torn (a crash mid-append): it is
   * cut. Any other line that is not JSON is corruption: the read fails. A line that is JSON
   * of the wrong shape fails the read too, unless `onMisfit` is given: then it is handed
   * there and left out (it stays in the file until the next rewrite).
   */
  readAll(onMisfit?: (m: Misfit) => void): Promise<T[]>;
  /**
   * Queues the lines at once (so lines land in call order) and resolves when they are
   * durable. `onCommit` runs right before that, in append order, and never for lines that
   * failed to be written: callers publish there, so readers only ever see committed lines.
   * `sync: false` lines are written but not synced on their own; the next synced line, which
   * lands after them in the same file, makes them durable too.
   */
  append(entries: readonly T[], onCommit?: () => void, opts?: { sync?: boolean }): Promise<void>;
  /**
   * Replaces the file with what `select` answers (null: leave it as it is). `select` runs
   * once every earlier append has committed and before any later one is written, so nothing
   * appended meanwhile is lost; `onCommit` gets the kept entries after the new file is
   * durable.
   */
  rewrite(select: () => readonly T[] | null, onCommit?: (kept: readonly T[]) => void): Promise<void>;
  /** Nothing queued or under way (no append, rewrite or close): dropping this log now loses nothing. */
  idle(): boolean;
  close(): Promise<void>;
}

/** A regular file may take less than asked in one write (a full disk answers ENOSPC on the next). */
function writeAll(fd: number, buf: Buffer) {
  for (let at = 0; at < buf.length; ) at += writeSync(fd, buf, at, buf.length - at);
}

type Pending = { text: string; sync: boolean; onCommit: (() => void) | undefined; resolve: () => void; reject: (e: unknown) => void };

/**
 * `openFiles`: a budget shared with other logs (open-files-budget.ts); without one the file
 * stays open from the first append to `close`.
 */
export function createAppendLog<T>(
  file: string,
  schema: z.ZodType<T>,
  { fsync = true, openFiles }: { fsync?: boolean; openFiles?: OpenFilesBudget } = {},
): AppendLog<T> {
  mkdirSync(path.dirname(file), { recursive: true, mode: PRIVATE_DIR });
  let handle: FileHandle | null = null;
  /** Bytes known to be whole lines: a failed batch is cut back to this. */
  let size = 0;
  let queue: Pending[] = [];
  let chain: Promise<unknown> = Promise.resolve();
  /** Work queued on `chain` and not yet done. */
  let pending = 0;
  const serial = <R>(work: () => Promise<R>): Promise<R> => {
    pending += 1;
    const counted = async () => {
      try {
        return await work();
      } finally {
        pending -= 1;
      }
    };
    const run = chain.then(counted, counted);
    chain = run.catch(() => undefined);
    return run;
  };
  const closeHandle = async () => {
    await handle?.close();
    handle = null;
  };
  const holder: FileHolder = { closeFile: () => serial(closeHandle) };
  const fd = async () => {
    if (!handle) {
      handle = await open(file, 'a', PRIVATE_FILE);
      size = (await handle.stat()).size;
    }
    openFiles?.used(holder);
    return handle;
  };

  /** Writes everything queued so far as one batch: one write, one fdatasync. */
  async function flush() {
    const batch = queue;
    queue = [];
    const bytes = Buffer.from(batch.map((p) => p.text).join(''));
    try {
      const h = await fd();
      // The write itself is a copy into the page cache, tens of microseconds for a batch of
      // lines: done in this thread, it saves the thread-pool round trip (two thread wake-ups)
      // that an async write costs on top, on every append. Only the fdatasync, which waits
      // for the disk, goes to the thread pool.
      writeAll(h.fd, bytes);
      if (fsync && batch.some((p) => p.sync)) await h.datasync();
      size += bytes.length;
    } catch (e) {
      // Cut whatever part of the batch reached the file, so a later batch does not start
      // after a torn line (which would make the file unreadable on the next start).
      await handle?.truncate(size).catch(() => undefined);
      for (const p of batch) p.reject(e);
      return;
    }
    for (const p of batch) {
      try {
        p.onCommit?.();
        p.resolve();
      } catch (e) {
        p.reject(e);
      }
    }
  }

  return {
    async readAll(onMisfit) {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw e;
      }
      const out: T[] = [];
      const lines = text.split('\n');
      let validBytes = 0;
      for (const [i, line] of lines.entries()) {
        if (line === '') {
          if (i < lines.length - 1) validBytes += 1; // a blank line (a hand edit's) is whole too
          continue;
        }
        let parsed: { success: true; data: T } | { success: false; error: unknown } | undefined;
        let notJson: unknown;
        try {
          parsed = schema.safeParse(JSON.parse(line));
        } catch (e) {
          notJson = e; // handled below, as torn or as corrupt
        }
        if (parsed?.success) out.push(parsed.data);
        else if (parsed && onMisfit) onMisfit({ line: i + 1, text: line, error: parsed.error });
        else {
          // Only the last line can be torn (a crash mid-append): cut it so later appends
          // start on a clean line. Anything earlier is corruption and must not be hidden.
          if (i === lines.length - 1 || (i === lines.length - 2 && lines[i + 1] === '')) {
            await serial(async () => {
              await truncate(file, validBytes);
              if (handle) size = validBytes;
            });
            break;
          }
          throw new Error(`corrupt line ${i + 1} in ${file}`, { cause: parsed?.error ?? notJson });
        }
        // A misfit is a whole line: a torn line after it is cut after it.
        validBytes += Buffer.byteLength(line) + 1;
      }
      // A whole last line without its newline (a crash between the two, or a hand edit) gets
      // one, or the next append would run on from it into a line no read could parse.
      if (validBytes === Buffer.byteLength(text) + 1) {
        await serial(async () => {
          await appendFile(file, '\n');
          if (handle) size = validBytes;
        });
      }
      return out;
    },
    append(entries, onCommit, opts) {
      const text = entries.map((e) => `${JSON.stringify(e)}\n`).join('');
      return new Promise<void>((resolve, reject) => {
        queue.push({ text, sync: opts?.sync ?? true, onCommit, resolve, reject });
        // The first line of a new batch schedules its flush; later ones ride along.
        if (queue.length === 1) void serial(flush);
      });
    },
    rewrite(select, onCommit) {
      return serial(async () => {
        const kept = select();
        if (kept === null) return;
        await closeHandle();
        openFiles?.closed(holder);
        await writeFileAtomic(file, kept.map((e) => `${JSON.stringify(e)}\n`).join(''), { fsync });
        onCommit?.(kept);
      });
    },
    idle: () => pending === 0 && queue.length === 0,
    close() {
      return serial(async () => {
        await closeHandle();
        openFiles?.closed(holder);
      });
    },
  };
}
