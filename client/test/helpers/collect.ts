// Drains an async iterable in the background so a test can wait for conditions on what arrived.
export function collect<T>(source: AsyncIterable<T>) {
  const items: T[] = [];
  let error: unknown;
  let ended = false;
  let waiters: { pred: () => boolean; resolve: () => void }[] = [];
  const check = () => {
    waiters = waiters.filter((w) => {
      if (!w.pred()) return true;
      w.resolve();
      return false;
    });
  };
  const done = (async () => {
    try {
      for await (const item of source) {
        items.push(item);
        check();
      }
    } catch (e) {
      error = e;
    } finally {
      ended = true;
      check();
    }
  })();
  return {
    items,
    done,
    get error() {
      return error;
    },
    get ended() {
      return ended;
    },
    until(pred: () => boolean, timeoutMs = 10_000): Promise<void> {
      if (pred()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`condition not met in ${timeoutMs} ms; have ${items.length} items`)), timeoutMs);
        waiters.push({
          pred,
          resolve: () => {
            clearTimeout(t);
            resolve();
          },
        });
      });
    },
  };
}

export const waitFor = (pred: () => boolean, timeoutMs = 10_000) =>
  new Promise<void>((resolve, reject) => {
    const t0 = Date.now();
    const tick = () => {
      if (pred()) return resolve();
      if (Date.now() - t0 > timeoutMs) return reject(new Error(`condition not met in ${timeoutMs} ms`));
      setTimeout(tick, 10);
    };
    tick();
  });
