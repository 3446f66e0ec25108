// The conversation thread: an append-only log per account (data/thread/<account>.jsonl); the
// whole account thread is served from memory.
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
    async appendThread(accountId, entry) {
      const log = await threadLog(accountId);
      // As with events: id and queue position are taken together, published once durable.
      const stored = deepFreeze({ ...entry, id: log.next } as ThreadEntry);
      log.next += 1;
      await log.file.append([stored], () => {
        log.entries.push(stored);
      });
      return stored;
    },
    async readThread(accountId, { before, limit }) {
      const { entries } = await threadLog(accountId);
      const end = before === undefined ? entries.length : firstIndexAfter(entries, before - 1);
      return entries.slice(Math.max(0, end - limit), end);
    },
  };
}
