// Per-key rate limiting over a true sliding window: a log of the last `limit` request
// times per key. A request is allowed when fewer than `limit` fall inside the last
// `windowMs`; there are no bucket edges to burst across.
import type { Clock } from '../clock/clock';

export type RateDecision = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /**
   * Seconds until the oldest request in the window leaves it, freeing one more; at least 1.
   * (It would be 0 only for an empty window, and after a counted request the window always
   * holds that request.) On a refusal this is also the Retry-After.
   */
  resetS: number;
};

export function parseRateLimit(spec: string): { limit: number; windowMs: number } | null {
  const m = /^(\d+)\/(\d+)(ms|s|m|h)$/.exec(spec);
  if (!m) return null;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[3] as 'ms' | 's' | 'm' | 'h'];
  const limit = Number(m[1]);
  const windowMs = Number(m[2]) * unit;
  return limit > 0 && windowMs > 0 ? { limit, windowMs } : null;
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** A FIFO of request times with O(1) amortised push and expiry (Array#shift is O(n)). */
type TimeLog = { times: number[]; head: number };
const size = (l: TimeLog) => l.times.length - l.head;
const oldest = (l: TimeLog) => l.times[l.head] as number;

export function createRateLimiter({ limit, windowMs, clock }: { limit: number; windowMs: number; clock: Clock }) {
  const logs = new Map<string, TimeLog>();

  function hit(id: string): RateDecision {
    const now = clock.now();
    let log = logs.get(id);
    if (!log) {
      log = { times: [], head: 0 };
      logs.set(id, log);
    }
    while (size(log) > 0 && oldest(log) <= now - windowMs) log.head++;
    if (log.head > 1024 && log.head * 2 > log.times.length) {
      log.times = log.times.slice(log.head);
      log.head = 0;
    }
    if (size(log) >= limit) {
      const resetS = Math.max(1, Math.ceil((oldest(log) + windowMs - now) / 1000));
      return { allowed: false, limit, remaining: 0, resetS };
    }
    log.times.push(now);
    const remaining = limit - size(log);
    const resetS = Math.max(1, Math.ceil((oldest(log) + windowMs - now) / 1000));
    return { allowed: true, limit, remaining, resetS };
  }

  return {
    hit,
    /** Forget idle keys so the table does not grow with every key ever seen. */
    sweep() {
      const cutoff = clock.now() - windowMs;
      for (const [id, log] of logs) if ((log.times.at(-1) ?? 0) <= cutoff) logs.delete(id);
    },
  };
}
