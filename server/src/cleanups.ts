// What a starting server has opened, to close in reverse order: the last thing opened is the
// first closed, so everything a part depends on outlives it.
export type Cleanups = {
  /** Adds a step to run on close (before every step added earlier). */
  add(fn: () => Promise<unknown> | unknown): void;
  /** Runs every step, newest first; safe to call twice (the second does nothing). */
  run(): Promise<void>;
};

export function createCleanups(): Cleanups {
  const steps: (() => Promise<unknown> | unknown)[] = [];
  return {
    add(fn) {
      steps.push(fn);
    },
    async run() {
      while (steps.length > 0) await (steps.pop() as () => unknown)();
    },
  };
}
