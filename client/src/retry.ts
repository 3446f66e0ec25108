// When to try a call again and how long to wait. Pure functions, so the HTTP layer and
// the events iterator share one rule and tests can check delays without sleeping.
import { PresenceApiError, PresenceNetworkError } from './errors';

export type RetryPolicy = {
  /** Extra attempts after the first. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited out: the error is thrown instead. */
  maxRetryAfterMs: number;
};

export const defaultRetryPolicy: RetryPolicy = { retries: 2, baseDelayMs: 250, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

// 429, 503 and network errors are what the client issue asks for. 500/502/504 go beyond it,
// because the spec's error table says a 5xx is safe to retry with the same Idempotency-Key
// (the server stores no 5xx answer, and its actions are durable, so none runs twice).
// idempotency_in_progress means "the first copy is still running": its retry gets the first
// one's answer. Every other 4xx would fail the same way again. README: "Retries and idempotency".
const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

export function isRetryable(err: unknown): boolean {
  if (err instanceof PresenceNetworkError) return true;
  if (err instanceof PresenceApiError) return RETRYABLE_STATUS.has(err.status) || err.type === 'idempotency_in_progress';
  return false;
}

/** Exponential backoff with "equal jitter": never less than half the step, so retries spread out but still wait. */
export function backoffDelay(attempt: number, policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(step / 2 + (random() * step) / 2);
}

/** Milliseconds to wait before retry number `attempt` (0-based), or null when the error must surface. */
export function retryDelay(err: unknown, attempt: number, policy: RetryPolicy, random: () => number): number | null {
  if (attempt >= policy.retries || !isRetryable(err)) return null;
  const after = err instanceof PresenceApiError ? err.retryAfter : undefined;
  if (after !== undefined) {
    const ms = after * 1000;
    if (ms > policy.maxRetryAfterMs) return null;
    // Honour the server's wait exactly, plus a little spread so clients do not return in lockstep.
    return ms + Math.round(random() * 100);
  }
  return backoffDelay(attempt, policy, random);
}

/** Seconds from a Retry-After header: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** A sleep that gives up (rejecting with the abort reason) as soon as the signal fires. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
