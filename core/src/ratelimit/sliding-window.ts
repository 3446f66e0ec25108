// Rate limiting over a true sliding window: a log of the last `limit` request times per id
// (a key, a client address). A request is allowed when fewer than `limit` fall inside the
// last `windowMs`; there are no bucket edges to burst across. Idle ids are forgotten once a
// window, so the table holds only ids seen in the last two windows, however many came by.
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

/**
 * What callers of a limiter need: the in-memory one below answers at once, a shared one (a
 * cluster on one database, cluster-port.ts) from the database; callers await either.
 */
export type RateLimiterPort = {
  hit(id: string): RateDecision | Promise<RateDecision>;
  peek(id: string): RateDecision | Promise<RateDecision>;
};

/** A FIFO of request times with O(1) amortised push and expiry (Array#shift is O(n)). */
type TimeLog = { times: number[]; head: number };
const size = (l: TimeLog) => l.times.length - l.head;
const oldest = (l: TimeLog) => l.times[l.head] as number;

export function createRateLimiter({ limit, windowMs, clock }: { limit: number; windowMs: number; clock: Clock }) {
  const logs = new Map<string, TimeLog>();
  let lastSweep = clock.now();

  function sweep() {
    const now = clock.now();
    lastSweep = now;
    const cutoff = now - windowMs;
    for (const [id, log] of logs) if ((log.times.at(-1) ?? 0) <= cutoff) logs.delete(id);
  }

  /** The id's log with expired times dropped (an id never seen reads as empty). */
  function current(id: string, now: number): TimeLog | undefined {
    // Amortised: one pass over the table per window, however many ids it holds.
    if (now - lastSweep >= windowMs) sweep();
    const log = logs.get(id);
    if (!log) return undefined;
    while (size(log) > 0 && oldest(log) <= now - windowMs) log.head++;
    if (log.head > 1024 && log.head * 2 > log.times.length) {
      log.times = log.times.slice(log.head);
      log.head = 0;
    }
    return log;
  }

  const resetOf = (log: TimeLog, now: number) => Math.max(1, Math.ceil((oldest(log) + windowMs - now) / 1000));

  function hit(id: string): RateDecision {
    const now = clock.now();
    let log = current(id, now);
    if (!log) {
      log = { times: [], head: 0 };
      logs.set(id, log);
    }
    if (size(log) >= limit) return { allowed: false, limit, remaining: 0, resetS: resetOf(log, now) };
    log.times.push(now);
    return { allowed: true, limit, remaining: limit - size(log), resetS: resetOf(log, now) };
  }

  /**
   * Whether a hit now would be allowed, without counting one: for budgets that count only
   * outcomes (failed attempts), checked before the attempt and hit after it failed.
   * `resetS` is 0 while the window is empty.
   */
  function peek(id: string): RateDecision {
    const now = clock.now();
    const log = current(id, now);
    const used = log ? size(log) : 0;
    const resetS = log && used > 0 ? resetOf(log, now) : 0;
    return { allowed: used < limit, limit, remaining: Math.max(0, limit - used), resetS };
  }

  return {
    hit,
    peek,
    /** Forget idle ids now (hits also do this by themselves once a window). */
    sweep,
    /** Ids currently remembered (for tests of the table's bound). */
    get ids() {
      return logs.size;
    },
  };
}
