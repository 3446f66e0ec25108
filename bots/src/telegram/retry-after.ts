// Honours Telegram's 429 "retry after N seconds" for every Bot API call: waits as asked and
// tries again, a few times, unless the wait is longer than we are willing to hold a reply.
import { setTimeout as delay } from 'node:timers/promises';
import type { Transformer } from 'grammy';

export type RetryAfterOptions = {
  maxRetries?: number;
  /** A longer retry_after is not waited out: the 429 is passed on. */
  maxDelayS?: number;
  onWait?: (method: string, seconds: number) => void;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
};

const defaultSleep = (ms: number, signal?: AbortSignal) => delay(ms, undefined, signal ? { signal } : {});

export function retryAfter({ maxRetries = 3, maxDelayS = 60, onWait, sleep = defaultSleep }: RetryAfterOptions = {}): Transformer {
  return async (prev, method, payload, signal) => {
    for (let attempt = 0; ; attempt++) {
      const res = await prev(method, payload, signal);
      if (res.ok || res.error_code !== 429 || attempt >= maxRetries) return res;
      const seconds = res.parameters?.retry_after ?? 1;
      if (seconds > maxDelayS) return res;
      onWait?.(method, seconds);
      // grammY's signal is the abort-controller polyfill's (surface/abortable.ts, platformSignal).
      await sleep(seconds * 1000, signal as AbortSignal | undefined);
    }
  };
}
