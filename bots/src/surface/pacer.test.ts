import { describe, expect, it } from 'vitest';
import { createPacer } from './pacer';

describe('createPacer', () => {
  it('spaces calls in one chat by the interval, queues concurrent callers, and leaves other chats alone', async () => {
    let t = 1_000;
    const slept: number[] = [];
    const pacer = createPacer(1000, {
      now: () => t,
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
    await pacer.wait('a');
    await Promise.all([pacer.wait('a'), pacer.wait('a')]);
    await pacer.wait('b');
    expect(slept).toEqual([1000, 2000]);
    t += 5_000;
    await pacer.wait('a');
    expect(slept).toEqual([1000, 2000]);
  });
});
