// The open-files budget: past the cap the least recently used holder closes its file (through
// its own queue: a close waits behind a write in flight), a used one moves to the back, and a
// holder that closed on its own is forgotten.
import { describe, expect, it } from 'vitest';
import { createOpenFilesBudget, type FileHolder } from './open-files-budget';

function holder(name: string, closed: string[], gate?: Promise<void>): FileHolder {
  return {
    closeFile: async () => {
      await gate;
      closed.push(name);
    },
  };
}

describe('open files budget', () => {
  it('closes the least recently used beyond the cap, never one used since', async () => {
    const closed: string[] = [];
    const budget = createOpenFilesBudget(2);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => holder(n, closed)) as FileHolder[];
    budget.used(a as FileHolder);
    budget.used(b as FileHolder);
    budget.used(a as FileHolder); // a is now the most recent
    budget.used(c as FileHolder);
    await budget.settled();
    expect(closed).toEqual(['b']);
    budget.closed(a as FileHolder); // a closed its file itself (a rewrite): not closed again
    budget.used(d as FileHolder);
    await budget.settled();
    expect(closed).toEqual(['b']);
    budget.used(b as FileHolder);
    await budget.settled();
    expect(closed).toEqual(['b', 'c']);
  });

  it("settled() waits for a close held up behind its holder's write, and a failed close is no error", async () => {
    const closed: string[] = [];
    let release!: () => void;
    const writing = new Promise<void>((r) => {
      release = r;
    });
    const budget = createOpenFilesBudget(1);
    const failing: FileHolder = { closeFile: () => Promise.reject(new Error('EIO')) };
    budget.used(failing);
    budget.used(holder('slow', closed, writing));
    budget.used(holder('next', closed));
    let settled = false;
    const done = budget.settled().then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    release();
    await done;
    expect(closed).toEqual(['slow']);
  });
});
