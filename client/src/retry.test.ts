import { describe, expect, it } from 'vitest';
import { PresenceApiError, PresenceNetworkError, PresenceProtocolError } from './errors';
import { backoffDelay, defaultRetryPolicy, isRetryable, parseRetryAfter, retryDelay } from './retry';

const api = (status: number, type = 'x', retryAfter?: number) =>
  new PresenceApiError({ type, title: type, status, detail: '' }, retryAfter);

describe('retry rules', () => {
  it('retries 429, 5xx, idempotency_in_progress and network errors; nothing else', () => {
    for (const s of [429, 500, 502, 503, 504]) expect(isRetryable(api(s))).toBe(true);
    for (const s of [400, 401, 403, 404, 409, 413, 422]) expect(isRetryable(api(s))).toBe(false);
    expect(isRetryable(api(409, 'idempotency_in_progress'))).toBe(true);
    expect(isRetryable(new PresenceNetworkError('network', 'x'))).toBe(true);
    expect(isRetryable(new PresenceProtocolError('x', 200))).toBe(false);
    expect(isRetryable(new Error('x'))).toBe(false);
  });

  it('backs off exponentially with jitter between half and the whole step, capped', () => {
    const p = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4, 5].map((a) => backoffDelay(a, p, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([0, 1, 2, 3, 4, 5].map((a) => backoffDelay(a, p, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('waits Retry-After when given, refuses one beyond the limit, and stops at the budget', () => {
    expect(retryDelay(api(429, 'rate_limited', 2), 0, defaultRetryPolicy, () => 0)).toBe(2000);
    expect(retryDelay(api(429, 'rate_limited', 3600), 0, defaultRetryPolicy, () => 0)).toBeNull();
    expect(retryDelay(api(503), defaultRetryPolicy.retries, defaultRetryPolicy, () => 0)).toBeNull();
    expect(retryDelay(api(400), 0, defaultRetryPolicy, () => 0)).toBeNull();
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30);
  });
});
