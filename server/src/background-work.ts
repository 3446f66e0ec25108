// The periodic work of a deployment: the short beat (hold expiry, standing intents) and upkeep
// (stranded intents, retention, the compactor). With many servers it runs on the elected
// leader only; a server that becomes leader first picks up intents a dead one left behind.
import type { Clock, Core } from '@presence/core';

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
  const timers: NodeJS.Timeout[] = [];
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

  if (standingMs > 0) {
    // A beat that finds nothing moved costs one eth_blockNumber.
    let running = false;
    timers.push(
      setInterval(() => {
        if (running) return;
        running = true;
        void (async () => {
          if (await leading()) await core.tick();
        })()
          .catch((err) => warn(err, 'expiry sweep or standing intents evaluation failed'))
          .finally(() => {
            running = false;
          });
      }, standingMs),
    );
  }

  if (maintenanceMs > 0) {
    let lastCompaction = clock.now();
    timers.push(
      setInterval(() => {
        void (async () => {
          if (!(await leading())) return;
          await core.maintain();
          if (clock.now() - lastCompaction >= HOUR) {
            lastCompaction = clock.now();
            await core.compactor.runOnce();
          }
        })().catch((err) => warn(err, 'upkeep failed'));
      }, maintenanceMs),
    );
  }
  for (const t of timers) t.unref();

  return {
    stop() {
      for (const t of timers) clearInterval(t);
    },
  };
}
