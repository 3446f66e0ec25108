// Readiness (GET /v1/ready): whether this server can do its work now — the store answers a
// cheap read and the chain its block number, each within a short timeout. Liveness is
// /v1/health, which answers as long as the process serves HTTP at all. A load balancer
// takes a server that is not ready out of rotation instead of sending it requests to fail.
import { type Core, PresenceError } from '@presence/core';
import type { Ready } from '@presence/protocol';

export const READY_TIMEOUT_MS = 1_000;
/** An id no account has: the read goes to the store, finds nothing, and costs next to nothing. */
const PROBE_ACCOUNT = '__ready_probe__';

type Outcome<T> = { ok: true; value: T; ms: number } | { ok: false; why: string };

async function probe<T>(run: () => Promise<T>, timeoutMs: number): Promise<Outcome<T>> {
  const start = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  const work = run();
  try {
    const v = await Promise.race([work, late]);
    if (v === 'late') return { ok: false, why: `did not answer within ${timeoutMs} ms` };
    return { ok: true, value: v as T, ms: Math.round((performance.now() - start) * 10) / 10 };
  } catch {
    return { ok: false, why: 'failed' };
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined); // a late failure is no longer anyone's answer
  }
}

/** Answers the checks, or throws 503 `unavailable` naming what failed (`failing`). */
export function createReadiness(core: Core, timeoutMs = READY_TIMEOUT_MS) {
  return async (): Promise<Ready> => {
    const chain = core.wallet?.chain;
    const [store, head] = await Promise.all([
      probe(() => core.store.getAccount(PROBE_ACCOUNT), timeoutMs),
      chain ? probe(() => chain.blockNumber(), timeoutMs) : null,
    ]);
    const failing: string[] = [];
    const reasons: string[] = [];
    if (!store.ok) {
      failing.push('store');
      reasons.push(`the store ${store.why}`);
    }
    if (head && !head.ok) {
      failing.push('chain');
      reasons.push(`the chain ${head.why}`);
    }
    if (!store.ok || (head && !head.ok))
      throw new PresenceError('unavailable', `not ready: ${reasons.join('; ')}`, { retryAfter: 5, extra: { failing } });
    return {
      ok: true,
      checks: {
        store: { ok: true, ms: store.ms },
        chain: head?.ok ? { ok: true, ms: head.ms, block: Number(head.value) } : null,
      },
    };
  };
}
