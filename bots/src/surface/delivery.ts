// The delivery loop both event paths share: the per-user feeds (event-feed.ts) and the
// surface token's one stream (surface-stream.ts). A subscription is followed until it ends
// or a stop comes, and opened again after `restartMs` when it failed (the SDK's iterator has
// already reconnected what it could); an event a platform keeps refusing is tried a few times
// with backoff and then given up on, so one chat cannot stall the feed.
import { setTimeout as delay } from 'node:timers/promises';
import type { PresenceEvent } from '@presence/client';
import type { Log } from './logging';

/**
 * What both paths log when a stream answers below where it stood: the server's history went
 * back (it was restored from a backup) and the stream resumes at its newest.
 */
export const WENT_BACK = "the server's events went back (restored from a backup?): resuming at its newest";

/** Waits, or stops waiting when `signal` aborts. */
export const sleep = (ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }).catch(() => undefined);

/**
 * Hands `event` to `handle`, trying again with backoff up to `attempts` times. 'done': handled
 * or given up on (record it); 'stopped': a stop cut the wait short (record nothing);
 * 'skipped': `wanted` said no before an attempt.
 */
export async function handleWithRetry(o: {
  owner: string;
  event: PresenceEvent;
  handle: () => Promise<void>;
  attempts: number;
  signal: AbortSignal;
  log: Log;
  /** Checked before each attempt: false skips the event (already past it, or the user is gone). */
  wanted?: () => boolean;
  /** Failures that are not the event's: thrown at once, not tried again. */
  fatal?: (e: unknown) => boolean;
}): Promise<'done' | 'stopped' | 'skipped'> {
  const { owner, event } = o;
  for (let i = 1; ; i++) {
    if (o.wanted && !o.wanted()) return 'skipped';
    try {
      await o.handle();
      return 'done';
    } catch (e) {
      if (o.fatal?.(e)) throw e;
      o.log('warn', 'handling an event failed', { user: owner, event: event.id, type: event.type, attempt: i, error: String(e) });
      if (i >= o.attempts) return 'done';
      await sleep(500 * 2 ** i, o.signal);
      if (o.signal.aborted) return 'stopped';
    }
  }
}

/**
 * Follows subscriptions until a stop, the stream's own end, or `each` saying stop. A failed
 * subscription is logged (`ended`) and opened again after `restartMs`, unless `settle` deals
 * with the failure itself (true: stop following).
 */
export async function followStream<I>(o: {
  signal: AbortSignal;
  /** A new subscription; null when there is nothing to follow any more. */
  open(): (AsyncIterable<I> & { close(): void }) | null;
  /** Each item; true stops following. */
  each(item: I): Promise<boolean | undefined>;
  settle?(e: unknown): Promise<boolean>;
  log: Log;
  ended: { message: string; fields?: Record<string, unknown> };
  restartMs?: number;
}): Promise<void> {
  const { signal } = o;
  while (!signal.aborted) {
    const sub = o.open();
    if (!sub) return;
    try {
      for await (const item of sub) if (await o.each(item)) return;
      return;
    } catch (e) {
      if (signal.aborted) return;
      if (o.settle && (await o.settle(e))) return;
      o.log('error', o.ended.message, { ...o.ended.fields, error: String(e) });
      await sleep(o.restartMs ?? 60_000, signal);
    } finally {
      sub.close();
    }
  }
}
