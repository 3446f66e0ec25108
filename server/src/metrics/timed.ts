// Times the calls of a port without knowing it: a proxy whose chosen methods report their
// duration and whether they resolved. The port's other members, and any the port grows later,
// pass through untouched; `this` inside a method is still the port itself.
export type Observe = (operation: string, ok: boolean, seconds: number) => void;

export function timed<T extends object>(port: T, observe: Observe, which: (name: string) => boolean): T {
  const wrapped = new Map<string, unknown>();
  return new Proxy(port, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof name !== 'string' || typeof value !== 'function' || !which(name)) return value;
      let fn = wrapped.get(name);
      if (!fn) {
        fn = (...args: unknown[]) => {
          const start = performance.now();
          const done = (ok: boolean) => observe(name, ok, (performance.now() - start) / 1000);
          const out = (value as (...a: unknown[]) => unknown).apply(target, args);
          // Synchronous members (signing, building calldata) are no round trip: not timed.
          if (!(out instanceof Promise)) return out;
          return out.then(
            (v) => {
              done(true);
              return v;
            },
            (e: unknown) => {
              done(false);
              throw e;
            },
          );
        };
        wrapped.set(name, fn);
      }
      return fn;
    },
  });
}
