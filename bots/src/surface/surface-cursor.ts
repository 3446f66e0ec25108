// Where the bot's surface stream stands (surface-stream.ts): the positions handed to users'
// queues and not yet done, the cursor saved up to just below the oldest of them (so a crash
// loses nothing), a bound on how many are in flight, and going back when the server did (it
// was restored from a backup and answered a resume past its newest with its newest).
import { WENT_BACK } from './delivery';
import type { LinkStore } from './link-store';
import type { Log } from './logging';

export type SurfaceCursor = ReturnType<typeof createSurfaceCursor>;

export function createSurfaceCursor({ store, log, maxInFlight }: { store: LinkStore; log: Log; maxInFlight: number }) {
  /** Positions handed to queues and not yet done, oldest first by insertion. */
  const inFlight = new Set<number>();
  let highest = store.surfaceCursor() ?? 0;
  /**
   * Bumped at each rewind: work handed out before it finishes without recording anything, as
   * its ids belong to the history the server no longer has.
   */
  let epoch = 0;
  /** Settles once the last rewind is kept: what is recorded after it waits for it, so it is not undone. */
  let rewound: Promise<void> = Promise.resolve();
  let freed: (() => void) | null = null;

  /** Lets a reader waiting for room go on. */
  function release() {
    const f = freed;
    freed = null;
    f?.();
  }

  /** Saves the cursor up to just below the oldest position still being handled. */
  function advance() {
    const oldest = inFlight.values().next().value;
    const safe = oldest === undefined ? highest : oldest - 1;
    rewound
      .then(() => store.setSurfaceCursor(safe))
      .catch((e: unknown) => log('warn', 'could not save the surface cursor', { error: String(e) }));
  }

  return {
    /** The current history: hand it to `delivered` with what was handed out under it. */
    epoch: () => epoch,
    /** A position and the work handed out for it; the cursor passes it once the work is done. */
    track(seq: number, tasks: Promise<void>[], signal: AbortSignal) {
      highest = Math.max(highest, seq);
      if (tasks.length === 0) return advance();
      inFlight.add(seq);
      const from = epoch;
      void Promise.all(tasks).then(() => {
        // Cut short by a stop: not done, so the cursor stays below it and a restart hands it out again.
        if (signal.aborted || from !== epoch) return;
        inFlight.delete(seq);
        advance();
        release();
      });
    },
    /** Records the user's event as delivered, unless the server went back since it was handed out (`from`). */
    async delivered(owner: string, id: number, from: number) {
      await rewound;
      if (from === epoch) await store.setLastEventId(owner, id);
    },
    /**
     * The server went back to `seq`, below `from`: the stream resumes there and forgets each
     * user's last event id (the server numbers their events from lower again); kept, they would
     * skip every new event until its id passed the old ones.
     */
    rewind(seq: number, from: number) {
      log('warn', WENT_BACK, { from, to: seq });
      epoch += 1;
      inFlight.clear();
      highest = seq;
      rewound = store
        .rewindSurface(seq)
        .catch((e: unknown) => log('warn', 'could not save the rewound surface cursor', { error: String(e) }));
      release();
    },
    /** Waits while `maxInFlight` positions are being handled (the server then holds the rest, not our memory). */
    async room(signal: AbortSignal) {
      while (inFlight.size >= maxInFlight && !signal.aborted)
        await new Promise<void>((r) => {
          freed = r;
        });
    },
    release,
  };
}
