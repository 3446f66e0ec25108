// Work queued per key (a user's turns, a user's events, a card's edits) runs one task at a
// time in the order it was queued; other keys are not held up. A task that fails is its
// caller's to handle and does not stop the ones after it. The bots' one queue (core has its
// own keyed lock: the bots reach core only through the client SDK; docs/decisions.md).

export type Serial<K> = {
  /** Runs `task` after the key's earlier tasks; settles as `task` does. */
  run<T>(key: K, task: () => Promise<T>): Promise<T>;
  /** Settles when every task queued so far has. */
  idle(): Promise<void>;
};

export function createSerial<K>(): Serial<K> {
  /** Per key, the last task queued (settled quietly), removed once nothing follows it. */
  const last = new Map<K, Promise<void>>();
  return {
    run(key, task) {
      const result = (last.get(key) ?? Promise.resolve()).then(task);
      const settled = result.then(
        () => undefined,
        () => undefined,
      );
      last.set(key, settled);
      void settled.then(() => {
        if (last.get(key) === settled) last.delete(key);
      });
      return result;
    },
    async idle() {
      await Promise.allSettled([...last.values()]);
    },
  };
}
