// Times the calls of a port without knowing it: an object with the port's members whose chosen
// methods report their duration and whether they resolved. Every member is looked up on the
// port at call time (so a member a test replaces later is the one called) and runs with the
// port itself as `this` (so a class with private fields works too).
//
// A plain object built once, not a Proxy: the store is on every request's path, and a Proxy
// runs its get trap (and keeps V8 from inlining) on every member access. The auth bench could
// not tell the two apart on a 2-core machine (its bare-Fastify baseline swings 21k–38k req/s),
// so this is the cheaper shape by construction, not by a measured gain.
export type Observe = (operation: string, ok: boolean, seconds: number) => void;

/** Every member name of `port`: its own and its prototypes' (short of Object's). */
function memberNames(port: object): Set<string> {
  const names = new Set<string>();
  for (let o: object | null = port; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) if (name !== 'constructor') names.add(name);
  }
  return names;
}

export function timed<T extends object>(port: T, observe: Observe, which: (name: string) => boolean): T {
  const target = port as Record<string, unknown>;
  const call = (name: string, args: unknown[]) => (target[name] as (...a: unknown[]) => unknown).apply(port, args);
  const wrapper: Record<string, unknown> = {};
  for (const name of memberNames(port)) {
    if (typeof target[name] !== 'function') {
      Object.defineProperty(wrapper, name, {
        get: () => target[name],
        set: (v: unknown) => {
          target[name] = v;
        },
        enumerable: true,
      });
    } else if (!which(name)) {
      wrapper[name] = (...args: unknown[]) => call(name, args);
    } else {
      wrapper[name] = (...args: unknown[]) => {
        const start = performance.now();
        const out = call(name, args);
        // Synchronous members (signing, building calldata) are no round trip: not timed.
        if (!(out instanceof Promise)) return out;
        return out.then(
          (v) => {
            observe(name, true, (performance.now() - start) / 1000);
            return v;
          },
          (e: unknown) => {
            observe(name, false, (performance.now() - start) / 1000);
            throw e;
          },
        );
      };
    }
  }
  return wrapper as T;
}
