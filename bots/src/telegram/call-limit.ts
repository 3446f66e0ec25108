// A time limit for every Bot API call made while it is set. grammY's start-up and stop make
// calls we cannot hand a signal to (deleteWebhook, retried for ever on a network error; the
// last getUpdates that confirms the offset): installed as a transformer, this cuts them off
// at the start's deadline, when a stop is asked for, or a few seconds into the stop.
import type { Transformer } from 'grammy';
import { anySignal } from '../surface/abortable';

export function createCallLimit() {
  let limit: AbortSignal | undefined;
  const transformer: Transformer = (prev, method, payload, signal) =>
    // grammY's signal is the abort-controller polyfill's (surface/abortable.ts, platformSignal).
    prev(method, payload, (limit ? anySignal(signal as AbortSignal | undefined, limit) : signal) as never);
  return {
    transformer,
    /** Calls made from now on end when `signal` aborts (undefined: no limit). */
    set(signal: AbortSignal | undefined) {
      limit = signal;
    },
  };
}
