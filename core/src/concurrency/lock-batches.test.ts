import { describe, expect, it } from 'vitest';
import { createLocalLocks } from './cluster-locks';
import { createLockBatches } from './lock-batches';

/** A promise and the function that resolves it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe('lock batches', () => {
  it('what arrives while a batch holds the lock runs as one next batch; each item gets its own answer', async () => {
    const batches: number[][] = [];
    const first = gate();
    const running = gate();
    const take = createLockBatches<number, string>(createLocalLocks(), async (batch) => {
      batches.push(batch.map((e) => e.item));
      if (batches.length === 1) {
        running.open();
        await first.opened;
      }
      for (const e of batch) e.resolve(`#${e.item}`);
    });
    const answers = [take('a', 1)];
    await running.opened; // the first batch is sealed: it holds the lock and runs
    answers.push(take('a', 2), take('a', 3), take('a', 4));
    first.open();
    expect(await Promise.all(answers)).toEqual(['#1', '#2', '#3', '#4']);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('other names do not wait for each other', async () => {
    const held = gate();
    const take = createLockBatches<string, string>(createLocalLocks(), async (batch) => {
      if (batch[0]?.item === 'slow') await held.opened;
      for (const e of batch) e.resolve(e.item);
    });
    const slow = take('x', 'slow');
    expect(await take('y', 'quick')).toBe('quick');
    held.open();
    expect(await slow).toBe('slow');
  });

  it('a runner that throws fails the items it left unsettled and keeps the answers it gave', async () => {
    const take = createLockBatches<number, number>(createLocalLocks(), async (batch) => {
      batch[0]?.resolve(1);
      throw new Error('store down');
    });
    const answers = await Promise.allSettled([take('a', 1), take('a', 2)]);
    expect(answers[0]).toEqual({ status: 'fulfilled', value: 1 });
    expect(answers[1]).toMatchObject({ status: 'rejected', reason: { message: 'store down' } });
  });
});
