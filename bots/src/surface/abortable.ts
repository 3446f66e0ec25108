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
  return AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined));
}
