// A job run on a timer, one run at a time: a tick that finds the previous run still in flight
// is skipped rather than queued (a slow upkeep must not pile up behind itself, nor two runs of
// it race over the same rows). A failed run is handed to `onError` and the job runs again at
// the next tick; no run can reject into the process (on Node 20 an unhandled rejection ends it).
// `stop()` clears the timer and resolves once the run in flight, if any, has finished, so a
// closing server never pulls the store or the chain from under one.

export type PeriodicJobOptions = {
  /** Period of the timer, in milliseconds (> 0). */
  everyMs: number;
  run(): Promise<void>;
  /** Told of each failed run; the job itself goes on. */
  onError(err: unknown): void;
};

export type PeriodicJob = {
  /** No run starts after this is called; resolves when the one in flight has finished. */
  stop(): Promise<void>;
};

export function createPeriodicJob({ everyMs, run, onError }: PeriodicJobOptions): PeriodicJob {
  let inFlight: Promise<void> | null = null;
  let stopped = false;
  const once = async () => {
    try {
      await run();
    } catch (err) {
      try {
        onError(err);
      } catch {
        // The error reporter itself failed (a broken log stream): there is nowhere left to
        // report to, and a rejection here would end the process.
      }
    }
  };
  const timer = setInterval(() => {
    if (stopped || inFlight) return;
    // Cleared in a callback, never inside `once`: a run that throws before its first await
    // would otherwise clear it before it was set, and the job would stall for good.
    inFlight = once().finally(() => {
      inFlight = null;
    });
  }, everyMs);
  // The timer alone never keeps a process alive: whoever started the job decides when it ends.
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await inFlight;
    },
  };
}
