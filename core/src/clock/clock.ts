// The clock port. Everything time-dependent (grace windows, expiry, rate windows, the
// compactor, standing intents) reads time through this so tests can drive it.
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface ManualClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

export function createManualClock(startMs = Date.parse('2026-01-01T00:00:00Z')): ManualClock {
  let t = startMs;
  return {
    now: () => t,
    set: (ms) => {
      t = ms;
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

export const iso = (ms: number) => new Date(ms).toISOString();
