// Waiting that a stop can cut short. Some start-up work takes no AbortSignal (discord.js's
// login, grammY's polling set-up): the caller stops waiting at once, and the work itself is
// ended by the bot's stop(); its late outcome is dropped.

/** Settles like `work`, or rejects with the signal's reason as soon as it aborts. */
export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  work.catch(() => undefined); // a rejection after the abort is nobody's to handle
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A signal that aborts when any of these does (undefined ones are skipped). */
export function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal {
  return AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined).map(platformSignal));
}

/** What a polyfill's signal offers (grammY types it as its own AbortSignal). */
type SignalLike = Pick<AbortSignal, 'aborted' | 'reason' | 'addEventListener'>;

/**
 * The platform's AbortSignal for one that may come from a polyfill: grammY's are the
 * `abort-controller` package's, which Node 24's AbortSignal.any refuses by brand ("signals[0]
 * is not of type AbortSignal"; Node 20 took anything with `aborted`). It aborts with it.
 */
export function platformSignal(signal: AbortSignal | SignalLike): AbortSignal {
  if (signal instanceof AbortSignal) return signal;
  const c = new AbortController();
  if (signal.aborted) c.abort(signal.reason);
  else signal.addEventListener('abort', () => c.abort(signal.reason), { once: true });
  return c.signal;
}
