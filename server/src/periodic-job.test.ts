// What background-work.test.ts does not reach through the beat and upkeep: a run that throws
// before its first await, and a job stopped before it ever ran.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPeriodicJob } from './periodic-job';

const PERIOD = 100;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('createPeriodicJob', () => {
  it('goes on after a run that throws before its first await', async () => {
    const cause = new Error('thrown at once');
    const run = vi.fn((): Promise<void> => {
      throw cause;
    });
    const onError = vi.fn();
    const job = createPeriodicJob({ everyMs: PERIOD, run, onError });
    await vi.advanceTimersByTimeAsync(PERIOD * 3);
    expect(run).toHaveBeenCalledTimes(3);
    expect(onError).toHaveBeenCalledTimes(3);
    expect(onError).toHaveBeenLastCalledWith(cause);
    await job.stop();
  });

  it('starts no run once stopped, even one that never ran', async () => {
    const run = vi.fn(async () => {});
    const job = createPeriodicJob({ everyMs: PERIOD, run, onError: vi.fn() });
    await job.stop();
    await vi.advanceTimersByTimeAsync(PERIOD * 3);
    expect(run).not.toHaveBeenCalled();
  });
});
