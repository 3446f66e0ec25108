// Times the calls of a port without knowing it: a proxy whose chosen methods report their
// duration and whether they resolved. The port's other members, and any the port grows later,
// pass through; every method runs with the port itself as `this` (so a class with private
// fields works too).
export type Observe = (operation: string, ok: boolean, seconds: number) => void;

export function timed<T extends object>(port: T, observe: Observe, which: (name: string) => boolean): T {
  // Wrapped once per method; a member replaced later (a test's stand-in) is wrapped afresh.
  const methods = new Map<string | symbol, { of: unknown; fn: unknown }>();
  const wrap = (name: string | symbol, fn: (...a: unknown[]) => unknown) => {
    if (typeof name !== 'string' || !which(name)) return fn.bind(port);
    return (...args: unknown[]) => {
      const start = performance.now();
      const done = (ok: boolean) => observe(name, ok, (performance.now() - start) / 1000);
      const out = fn.apply(port, args);
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
  };
  return new Proxy(port, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== 'function') return value;
      let m = methods.get(name);
      if (m?.of !== value) {
        m = { of: value, fn: wrap(name, value as (...a: unknown[]) => unknown) };
        methods.set(name, m);
      }
      return m.fn;
    },
  });
}
