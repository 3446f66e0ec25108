// At most one edit per interval per chat (Telegram allows about one message a second per
// chat; Discord's per-channel edit bucket is similar). Callers reserve the next free slot,
// so concurrent callers queue instead of bursting.
import { setTimeout as delay } from 'node:timers/promises';

export type Pacer = {
  /** Resolves when this caller may edit in `chatId`; the slot is taken when it is reserved. */
  wait(chatId: string): Promise<void>;
};

export function createPacer(
  intervalMs: number,
  {
    now = Date.now,
    sleep = (ms: number): Promise<unknown> => delay(ms),
  }: { now?: () => number; sleep?: (ms: number) => Promise<unknown> } = {},
): Pacer {
  const next = new Map<string, number>();
  return {
    async wait(chatId) {
      const t = now();
      if (next.size > 1000) for (const [k, at] of next) if (at <= t) next.delete(k);
      const at = Math.max(t, next.get(chatId) ?? 0);
      next.set(chatId, at + intervalMs);
      if (at > t) await sleep(at - t);
    },
  };
}
