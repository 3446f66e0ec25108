// The beat and upkeep under fake timers: each runs one at a time however many ticks arrive,
// stop() waits for the run in flight, and a failed run is warned and tried again. Runs are
// held on gates the test opens, so nothing here depends on how fast anything is.
import type { Clock, Core } from '@presence/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startBackgroundWork } from './background-work';

const PERIOD = 1_000;

/** A promise the test resolves when it chooses. */
function gate() {
  let open = () => {};
  const passed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { passed, open };
}

/** A core with only what the background work calls; each spy resolves at once unless replaced. */
function fakeCore() {
  const tick = vi.fn(async () => 0);
  const maintain = vi.fn(async () => {});
  const runOnce = vi.fn(async () => {});
  return { core: { tick, maintain, compactor: { runOnce } } as unknown as Core, tick, maintain, runOnce };
}

const clock: Clock = { now: () => Date.now() };

function start(core: Core, warn = vi.fn(), which: 'beat' | 'upkeep' = 'upkeep') {
  const work = startBackgroundWork({
    core,
    clock,
    standingMs: which === 'beat' ? PERIOD : 0,
    maintenanceMs: which === 'upkeep' ? PERIOD : 0,
    isLeader: () => true,
    ledAtStart: true,
    warn,
  });
  return { work, warn };
}

beforeEach(() => {
  // setImmediate stays real: a test lets a macrotask pass with it.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('background work', () => {
  it('never overlaps upkeep: ticks that arrive while a run is in flight are skipped', async () => {
    const f = fakeCore();
    const held = gate();
    f.maintain.mockImplementationOnce(() => held.passed);
    const { work } = start(f.core);

    await vi.advanceTimersByTimeAsync(PERIOD * 10);
    expect(f.maintain).toHaveBeenCalledTimes(1);

    held.open();
    await vi.advanceTimersByTimeAsync(PERIOD);
    expect(f.maintain).toHaveBeenCalledTimes(2);
    await work.stop();
  });

  it('never overlaps the beat', async () => {
    const f = fakeCore();
    const held = gate();
    f.tick.mockImplementationOnce(() => held.passed.then(() => 0));
    const { work } = start(f.core, vi.fn(), 'beat');

    await vi.advanceTimersByTimeAsync(PERIOD * 10);
    expect(f.tick).toHaveBeenCalledTimes(1);

    held.open();
    await vi.advanceTimersByTimeAsync(PERIOD);
    expect(f.tick).toHaveBeenCalledTimes(2);
    await work.stop();
  });

  it.each(['upkeep', 'beat'] as const)('stop() waits for the %s in flight, and no run starts after it', async (which) => {
    const f = fakeCore();
    const held = gate();
    const steps: string[] = [];
    const blocked = async () => {
      steps.push('run entered');
      await held.passed;
      steps.push('run finished');
    };
    f.maintain.mockImplementationOnce(blocked);
    f.tick.mockImplementationOnce(() => blocked().then(() => 0));
    const { work } = start(f.core, vi.fn(), which);
    await vi.advanceTimersByTimeAsync(PERIOD);
    expect(steps).toEqual(['run entered']);

    const stopped = work.stop().then(() => steps.push('stopped'));
    await vi.advanceTimersByTimeAsync(PERIOD * 5);
    expect(steps).toEqual(['run entered']);

    held.open();
    await stopped;
    expect(steps).toEqual(['run entered', 'run finished', 'stopped']);
    await vi.advanceTimersByTimeAsync(PERIOD * 5);
    expect(f.maintain.mock.calls.length + f.tick.mock.calls.length).toBe(1);
  });

  it('stop() with nothing in flight resolves at once', async () => {
    const { work } = start(fakeCore().core);
    await expect(work.stop()).resolves.toBeUndefined();
  });

  it('warns a failed upkeep with its cause and runs it again at the next tick', async () => {
    const f = fakeCore();
    const cause = new Error('the store went away');
    f.maintain.mockRejectedValueOnce(cause);
    const { work, warn } = start(f.core);

    await vi.advanceTimersByTimeAsync(PERIOD);
    expect(warn).toHaveBeenCalledExactlyOnceWith(cause, 'upkeep failed');

    await vi.advanceTimersByTimeAsync(PERIOD);
    expect(f.maintain).toHaveBeenCalledTimes(2);
    expect(warn).toHaveBeenCalledTimes(1);
    await work.stop();
  });

  it('warns a failed beat with its cause and runs it again at the next tick', async () => {
    const f = fakeCore();
    const cause = new Error('rpc timed out');
    f.tick.mockRejectedValueOnce(cause);
    const { work, warn } = start(f.core, vi.fn(), 'beat');

    await vi.advanceTimersByTimeAsync(PERIOD);
    expect(warn).toHaveBeenCalledExactlyOnceWith(cause, 'expiry sweep or standing intents evaluation failed');

    await vi.advanceTimersByTimeAsync(PERIOD);
    expect(f.tick).toHaveBeenCalledTimes(2);
    await work.stop();
  });

  it('ends nothing when even the warning fails: no rejection escapes, and upkeep runs again', async () => {
    const f = fakeCore();
    f.maintain.mockRejectedValueOnce(new Error('the store went away'));
    const warn = vi.fn(() => {
      throw new Error('the log stream is closed');
    });
    const escaped = vi.fn();
    process.on('unhandledRejection', escaped);
    try {
      const { work } = start(f.core, warn);
      await vi.advanceTimersByTimeAsync(PERIOD);
      // Node reports an unhandled rejection once the microtasks have run out: let a macrotask pass.
      await new Promise(setImmediate);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(escaped).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(PERIOD);
      expect(f.maintain).toHaveBeenCalledTimes(2);
      await work.stop();
    } finally {
      process.off('unhandledRejection', escaped);
    }
  });

  it('runs the compactor with upkeep once an hour has passed, not at every upkeep', async () => {
    const f = fakeCore();
    const work = startBackgroundWork({
      core: f.core,
      clock,
      standingMs: 0,
      maintenanceMs: 60_000,
      isLeader: () => true,
      ledAtStart: true,
      warn: vi.fn(),
    });
    await vi.advanceTimersByTimeAsync(59 * 60_000);
    expect(f.maintain).toHaveBeenCalledTimes(59);
    expect(f.runOnce).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(f.runOnce).toHaveBeenCalledTimes(1);
    await work.stop();
  });
});
