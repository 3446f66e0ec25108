// What core does on the server's clock: the short beat (`tick`, about every second) and the
// periodic upkeep (`maintain`). Each step is one set-based read of what is due (its cost
// follows the work), never a loop over accounts.

import type { CoreMetrics } from './metrics/core-metrics';

/** The parts of core a beat or an upkeep reaches; the optional ones are absent when not wired. */
export type BeatParts = {
  wallet: { confirmations: { sweep(): Promise<unknown> }; resumeStranded(): Promise<unknown> } | null;
  webhooks: { dispatcher: { tick(): Promise<unknown> } } | null;
  standing: { tick(): Promise<number> };
  events: { pruneStale(): Promise<unknown> };
  surfaces: { maintain(): Promise<unknown> } | null;
  idempotency: { prune(): Promise<unknown> };
  passkeys: { prune(): Promise<unknown> } | null;
  /** The in-process request window (none when servers share one). */
  localRateLimiter: { sweep(): void } | null;
  metrics?: CoreMetrics;
};

export function createBeat(p: BeatParts) {
  return {
    /**
     * The short beat (about every second): holds past their time are dropped promptly (so
     * surfaces retire their buttons on time) and standing intents see new blocks and the clock.
     */
    async tick() {
      if (p.wallet) await p.wallet.confirmations.sweep();
      await p.webhooks?.dispatcher.tick();
      const fired = await p.standing.tick();
      if (fired > 0) p.metrics?.standingFired?.(fired);
      return fired;
    },
    /**
     * Periodic upkeep: expired holds, intents an outage left mid-flight, retention of events and
     * idempotency answers, idle rate-limit logs.
     */
    async maintain() {
      if (p.wallet) {
        await p.wallet.confirmations.sweep();
        await p.wallet.resumeStranded();
      }
      await p.events.pruneStale();
      await p.surfaces?.maintain();
      await p.idempotency.prune();
      await p.passkeys?.prune();
      p.localRateLimiter?.sweep();
    },
  };
}
