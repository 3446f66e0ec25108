// The conversation thread: an append-only log per account (data/thread/<account>.jsonl); the
// whole account thread is served from memory, so it is kept to its newest entries (pruneThread).
import { ThreadEntry } from '../documents';
import type { ThreadPort } from '../thread-port';
import { deepFreeze } from './documents-engine';
import { firstIndexAfter } from './first-index-after';
import { accountLogs, type StoreContext } from './per-account';

export type ThreadFamily = ThreadPort & { close(): Promise<void> };

export function openThread(ctx: StoreContext): ThreadFamily {
  const threadLog = accountLogs(ctx, 'thread', ThreadEntry, async (file) => {
    const entries = await file.readAll();
    return { file, entries, next: (entries.at(-1)?.id ?? 0) + 1 };
  });
  return {
    close: threadLog.close,
    appendThread: (accountId, entry) =>
      threadLog.use(accountId, async (log) => {
        // As with events: id and queue position are taken together, published once durable.
        const stored = deepFreeze({ ...entry, id: log.next } as ThreadEntry);
        log.next += 1;
        await log.file.append([stored], () => {
          log.entries.push(stored);
        });
        return stored;
      }),
    pruneThread: (accountId, keepLast) =>
      threadLog.use(accountId, async (log) => {
        let cut = 0;
        // Decided inside the log's rewrite, as the events' prune is: every earlier append is
        // committed by then and later ones go to the new file, so none is dropped on its way in.
        await log.file.rewrite(
          () => {
            cut = Math.max(0, log.entries.length - Math.max(keepLast, 1));
            return cut > 0 ? log.entries.slice(cut) : null;
          },
          (kept) => {
            log.entries = [...kept];
          },
        );
        return cut;
      }),
    readThread: (accountId, { before, limit }) =>
      threadLog.use(accountId, ({ entries }) => {
        const end = before === undefined ? entries.length : firstIndexAfter(entries, before - 1);
        return entries.slice(Math.max(0, end - limit), end);
      }),
  };
}
