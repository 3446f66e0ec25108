// Compaction of links.jsonl: the log rewritten to the live records, atomically. Calls made
// before a rewrite takes its snapshot share it. A scrub (something private dropped) asks for
// one within a second, shared by every drop in that second. A compaction that fails backs off
// (1 s, doubling to 5 min; backoff.ts), so a disk that refuses is not tried again by every
// change, which is still appended meanwhile (the log just grows); the first failure of an
// episode is logged with its cause, and the recovery, once each. A scrub that failed is tried
// again when the back-off allows, until one succeeds.
import type { AppendLog } from '@presence/core/files';
import { createBackoff } from './backoff';
import { type LinkLogEntry, type LinkTable, liveEntries } from './link-log';
import type { Log } from './logging';

const SCRUB_AFTER_MS = 1_000;
/** The wait after a failed compaction, doubling with each failure in a row up to the most. */
export const COMPACT_RETRY_FIRST_MS = 1_000;
export const COMPACT_RETRY_MOST_MS = 300_000;

type Deps = {
  file: AppendLog<LinkLogEntry>;
  table: LinkTable;
  /** Gets the number of lines the log holds once a compaction is durable. */
  onKept: (lines: number) => void;
  now: () => number;
  log: Log | undefined;
};

export function createCompaction({ file, table, onKept, now, log }: Deps) {
  /** A compaction whose rewrite has not taken its snapshot yet; `running`, any not yet done. */
  let queued: Promise<void> | null = null;
  let running: Promise<void> | null = null;
  let scrub: NodeJS.Timeout | null = null;
  /** A drop asked for a scrub that no compaction has done yet (a failed one leaves it asked). */
  let scrubWanted = false;
  const backoff = createBackoff({ now, firstMs: COMPACT_RETRY_FIRST_MS, maxMs: COMPACT_RETRY_MOST_MS });

  function scrubIn(ms: number) {
    if (scrub) return;
    scrub = setTimeout(() => {
      scrub = null;
      void compact(); // settles on its own: a failure is logged inside, and backs off
    }, ms);
    scrub.unref();
  }
  function failed(e: unknown) {
    if (backoff.failed()) {
      const message =
        'could not compact links.jsonl: changes are still appended (it grows); tried again in 1 s, then less often (up to every 5 min)';
      log?.('warn', message, { error: String(e) });
    }
    if (scrubWanted) scrubIn(backoff.left());
  }
  function succeeded() {
    const ended = backoff.succeeded();
    if (!ended) return;
    log?.('info', 'compacted links.jsonl again', { failed_tries: ended.failures, failing_since: new Date(ended.since).toISOString() });
  }
  /** Rewrites the log to the table as it is when the rewrite starts; while backing off, nothing (unless `evenIfBackingOff`). */
  function compact(evenIfBackingOff = false): Promise<void> {
    if (queued) return queued;
    if (!evenIfBackingOff && backoff.left() > 0) {
      if (scrubWanted) scrubIn(backoff.left());
      return Promise.resolve();
    }
    let scrubbing = false;
    const select = () => {
      queued = null;
      scrubbing = scrubWanted;
      scrubWanted = false;
      return liveEntries(table);
    };
    const run = file
      .rewrite(select, (kept) => onKept(kept.length))
      .then(succeeded, (e) => {
        scrubWanted ||= scrubbing;
        failed(e);
      })
      .finally(() => {
        if (queued === run) queued = null;
        if (running === run) running = null;
      });
    queued = run;
    running = run;
    return run;
  }

  return {
    compact,
    /** The compaction under way, or a new one (none while backing off). */
    ensure: (): Promise<void> => running ?? compact(),
    /** A compaction not yet snapshotted is waiting. */
    pending: (): boolean => queued !== null,
    /** Something private was dropped: compact soon, so it leaves the disk, once for all drops meanwhile. */
    scrubSoon() {
      scrubWanted = true;
      scrubIn(Math.max(SCRUB_AFTER_MS, backoff.left()));
    },
    stopScrub() {
      if (scrub) clearTimeout(scrub);
      scrub = null;
    },
  };
}
