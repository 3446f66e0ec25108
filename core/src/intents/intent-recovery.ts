// Finishing what an outage interrupted: intents left `executing` or `signed` by a crash (at
// start, or by the server that takes the lead) or by a chain outage the server outlived (the
// upkeep). A signed record re-broadcasts its stored bytes (it can land at most once) and
// settles; one stopped before signing sent nothing and is put back (intent-executor.ts release).
import type { Clock } from '../clock/clock';
import type { IntentRecord } from '../store/documents';
import type { StorePort } from '../store/store-port';
import type { Confirmations } from './confirmations';
import type { IntentExecutor } from './intent-executor';

/** A record in flight this long with no drive under way was left behind by an outage. */
const STRANDED_AFTER_MS = 60_000;
/**
 * With other servers running, a record in flight this long is stranded even though its
 * server may still be alive: longer than any drive takes (its RPC calls time out in seconds),
 * so no live server is still driving it.
 */
export const CLUSTER_STRANDED_MS = 120_000;

export function createIntentRecovery({
  store,
  clock,
  executor,
  confirmations,
}: {
  /** The live store: recovery is live. */
  store: Pick<StorePort, 'intentsInStates'> & Parameters<IntentExecutor['drive']>[0];
  clock: Clock;
  executor: IntentExecutor;
  confirmations: Pick<Confirmations, 'sweep'>;
}) {
  async function finish(r: IntentRecord): Promise<'settled' | 'failed'> {
    if (r.state === 'executing' && r.txs.length === 0) {
      // Cut off before signing: an approved hold is held again (the expiry sweep right after
      // drops it if its time ran out meanwhile); a new intent fails and frees its key.
      await executor.release(store, r, 'interrupted before signing; nothing was sent');
      return 'failed';
    }
    try {
      await executor.drive(store, r);
      return 'settled';
    } catch {
      return 'failed';
    }
  }

  /**
   * At start: finish what a crash interrupted. A signed intent re-broadcasts its stored
   * bytes (it can land at most once) and settles; one interrupted before signing sent
   * nothing, so it fails plainly rather than acting on a stale quote. Their events (tx,
   * confirm, the resumed conversation) follow from the executor's outcome listeners.
   */
  async function recover(): Promise<{ settled: number; failed: number }> {
    let settled = 0;
    let failed = 0;
    for (const r of await store.intentsInStates(['executing', 'signed'])) {
      const outcome = await finish(r);
      if (outcome === 'settled') settled++;
      else failed++;
    }
    await confirmations.sweep();
    return { settled, failed };
  }

  /**
   * Upkeep: intents an outage left mid-flight while the server kept running (nobody retried
   * them) are resumed in the background, so a signed transaction is not left unsent and a
   * stranded record does not count against the daily cap forever.
   */
  async function resumeStranded(idleMs = STRANDED_AFTER_MS): Promise<number> {
    const cutoff = clock.now() - idleMs;
    let n = 0;
    for (const r of await store.intentsInStates(['executing', 'signed'])) {
      if (executor.isDriving(r.id) || r.updated_at > cutoff) continue;
      n++;
      // Its own outcome is announced by the drive; a store failure here waits for the next upkeep.
      void finish(r).catch(() => undefined);
    }
    return n;
  }

  return {
    recover,
    /**
     * What the server that takes the lead of the background work recovers. Alone (embedded, or
     * no other server connected) every interrupted intent: nothing else can be driving one.
     * With other servers running, only those idle past CLUSTER_STRANDED_MS: the rest may be
     * another live server's, mid-drive.
     */
    async recoverAsLeader({ othersRunning }: { othersRunning: boolean }): Promise<{ settled: number; failed: number; resumed: number }> {
      if (!othersRunning) return { ...(await recover()), resumed: 0 };
      return { settled: 0, failed: 0, resumed: await resumeStranded(CLUSTER_STRANDED_MS) };
    },
    resumeStranded,
  };
}
