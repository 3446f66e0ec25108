// An append-only JSON-lines file: the shape for logs that only grow (events, thread,
// idempotency answers). An append writes one line, so its cost does not depend on how much
// is already stored; compaction rewrites atomically (temp file + rename). Appends resolve
// only after the bytes reached the kernel, so a process crash after an answer loses nothing.
import { mkdirSync } from 'node:fs';
import { type FileHandle, open, readFile, rename, truncate } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';

export interface AppendLog<T> {
  readAll(): Promise<T[]>;
  append(entries: readonly T[]): Promise<void>;
  rewrite(entries: readonly T[]): Promise<void>;
  close(): Promise<void>;
}

export function createAppendLog<T>(file: string, schema: z.ZodType<T>, options: { fsync?: boolean } = {}): AppendLog<T> {
  mkdirSync(path.dirname(file), { recursive: true });
  let handle: FileHandle | null = null;
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <R>(work: () => Promise<R>): Promise<R> => {
    const run = chain.then(work, work);
    chain = run.catch(() => undefined);
    return run;
  };
  const fd = async () => {
    handle ??= await open(file, 'a');
    return handle;
  };

  return {
    async readAll() {
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
        if (line === '') continue;
        try {
          out.push(schema.parse(JSON.parse(line)));
          validBytes += Buffer.byteLength(line) + 1;
        } catch (e) {
          // Only the last line can be torn (a crash mid-append): cut it so later appends
          // start on a clean line. Anything earlier is corruption and must not be hidden.
          if (i === lines.length - 1 || (i === lines.length - 2 && lines[i + 1] === '')) {
            await serial(() => truncate(file, validBytes));
            break;
          }
          throw new Error(`corrupt line ${i + 1} in ${file}`, { cause: e });
        }
      }
      return out;
    },
    append(entries) {
      if (entries.length === 0) return Promise.resolve();
      const text = `${entries.map((e) => JSON.stringify(e)).join('\n')}\n`;
      return serial(async () => {
        const h = await fd();
        await h.write(text);
        if (options.fsync) await h.datasync();
      });
    },
    rewrite(entries) {
      return serial(async () => {
        await handle?.close();
        handle = null;
        const tmp = `${file}.tmp`;
        const h = await open(tmp, 'w');
        await h.write(entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
        await h.datasync();
        await h.close();
        await rename(tmp, file);
      });
    },
    close() {
      return serial(async () => {
        await handle?.close();
        handle = null;
      });
    },
  };
}
