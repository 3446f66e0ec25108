// The periodic work of a deployment: the short beat (hold expiry, standing intents) and upkeep
// (stranded intents, retention, the compactor). With many servers it runs on the elected
// leader only; a server that becomes leader first picks up intents a dead one left behind.
// Each runs one at a time (periodic-job.ts): a failed run is warned with its cause and tried
// again at the next tick, and nothing here can reject into the process.
import type { Clock, Core } from '@presence/core';
import { createPeriodicJob, type PeriodicJob } from './periodic-job';

export type BackgroundOptions = {
  core: Core;
  clock: Clock;
  /** Short beat period; 0: the caller drives `core.tick()`. */
  standingMs: number;
  /** Upkeep period; 0: the caller drives upkeep. */
  maintenanceMs: number;
  isLeader(): boolean;
  /** Runs each time this server becomes leader, before its first beat as leader. */
  onLeadership?: () => Promise<void>;
  /** This server led at start and already ran `onLeadership`'s work: its first beat skips it. */
  ledAtStart?: boolean;
  warn(err: unknown, what: string): void;
};

const HOUR = 3_600_000;

export function startBackgroundWork({
  core,
  clock,
  standingMs,
  maintenanceMs,
  isLeader,
  onLeadership,
  ledAtStart = false,
  warn,
}: BackgroundOptions) {
  let led = ledAtStart;
  let takingOver: Promise<void> | null = null;
  /** Whether this server may run the work now; a fresh leader first runs its takeover. */
  const leading = async (): Promise<boolean> => {
    const now = isLeader();
    if (now && !led && onLeadership) {
      takingOver ??= onLeadership()
        .catch((err) => warn(err, 'taking over the background work failed'))
        .finally(() => {
          takingOver = null;
        });
      await takingOver;
    }
    led = now;
    return now && isLeader();
  };

  const jobs: PeriodicJob[] = [];
  if (standingMs > 0) {
    // A beat that finds nothing moved costs one eth_blockNumber.
    jobs.push(
      createPeriodicJob({
        everyMs: standingMs,
        run: async () => {
          if (await leading()) await core.tick();
        },
        onError: (err) => warn(err, 'expiry sweep or standing intents evaluation failed'),
      }),
    );
  }

  if (maintenanceMs > 0) {
    let lastCompaction = clock.now();
    jobs.push(
      createPeriodicJob({
        everyMs: maintenanceMs,
        run: async () => {
          if (!(await leading())) return;
          await core.maintain();
          if (clock.now() - lastCompaction >= HOUR) {
            lastCompaction = clock.now();
            await core.compactor.runOnce();
          }
        },
        onError: (err) => warn(err, 'upkeep failed'),
      }),
    );
  }

  return {
    /** Stops both timers; resolves once the beat and upkeep in flight, if any, have finished. */
    async stop(): Promise<void> {
      await Promise.all(jobs.map((job) => job.stop()));
    },
  };
}
