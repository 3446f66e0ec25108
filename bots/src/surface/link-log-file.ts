// links.jsonl on disk: opened (replayed, or carried over from links.json), a line appended per
// change through core's append log (group commit: an answered change is fdatasync'ed; a line
// torn by a crash is cut at the next open), and compacted — rewritten atomically to the live
// records — once it holds more than twice as many lines as live records (plus a floor), so a
// compaction's cost is spread over at least as many changes as it rewrites. A dropped link
// or secret leaves the disk within a second: it asks for a compaction of its own, shared by
// every drop in that second, rather than one per drop. Open and close compact too when the
// log holds anything dead.
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type AppendLog, createAppendLog } from '@presence/core/files';
import { applyEntry, emptyTable, LinkLogEntry, type LinkTable, liveCount, liveEntries, readDocumentV1 } from './link-log';
import type { Log } from './logging';

export const LINKS_FILE = 'links.jsonl';
/** The table as versions before the change log kept it (one document): carried over at open, then removed. */
export const LEGACY_LINKS_FILE = 'links.json';
/** Lines a log may hold beyond twice its live records before it is compacted. */
export const COMPACT_FLOOR = 1_000;
const SCRUB_AFTER_MS = 1_000;

export type LinkLogFile = Awaited<ReturnType<typeof openLinkLogFile>>;

/** The log and the table it holds; links.json, when that is all there is, is carried over first. */
async function load(dir: string, file: AppendLog<LinkLogEntry>, log: Log | undefined) {
  const legacy = path.join(dir, LEGACY_LINKS_FILE);
  if (existsSync(path.join(dir, LINKS_FILE))) {
    const entries = await file.readAll();
    const table = emptyTable();
    for (const e of entries) applyEntry(table, e);
    // Left by a carry-over that stopped after links.jsonl was durable and before this removal.
    rmSync(legacy, { force: true });
    return { table, lines: entries.length };
  }
  const table = readDocumentV1(legacy);
  if (!table) return { table: emptyTable(), lines: 0 };
  // links.json goes only once links.jsonl is durable (written, fsynced, renamed in place).
  await file.rewrite(() => liveEntries(table));
  rmSync(legacy);
  log?.('info', 'carried the link table over from links.json to links.jsonl (links.json removed)', { links: table.links.size });
  return { table, lines: liveCount(table) };
}

export async function openLinkLogFile(dir: string, log?: Log) {
  const file = createAppendLog(path.join(dir, LINKS_FILE), LinkLogEntry) as AppendLog<LinkLogEntry>;
  const { table, lines: linesAtOpen } = await load(dir, file, log);
  let lines = linesAtOpen;
  /** A compaction whose rewrite has not taken its snapshot yet; `running`, any not yet done. */
  let queued: Promise<void> | null = null;
  let running: Promise<void> | null = null;
  let scrub: NodeJS.Timeout | null = null;

  /** Rewrites the log to the table as it is when the rewrite starts; calls made before then share it. */
  function compact(): Promise<void> {
    if (queued) return queued;
    const run = file
      .rewrite(
        () => {
          queued = null;
          return liveEntries(table);
        },
        (kept) => {
          lines = kept.length;
        },
      )
      .catch((e) => log?.('warn', 'could not compact links.jsonl (it grows until the next try)', { error: String(e) }))
      .finally(() => {
        if (queued === run) queued = null;
        if (running === run) running = null;
      });
    queued = run;
    running = run;
    return run;
  }
  if (lines > liveCount(table)) await compact();

  return {
    table,
    /** Appends the changes (already made to `table`) and resolves once they are durable. */
    async write(entries: LinkLogEntry[]): Promise<void> {
      if (entries.length === 0) return;
      await file.append(entries);
      lines += entries.length;
      // The change that crosses the line waits for the compaction: its cost is the log's size,
      // which at least as many changes since the last one have paid for. One already under way
      // serves (the lines after its snapshot are few).
      if (lines > 2 * liveCount(table) + COMPACT_FLOOR) await (running ?? compact());
    },
    /** Something private was dropped: compact soon, so it leaves the disk, once for all drops meanwhile. */
    scrubSoon() {
      if (scrub) return;
      scrub = setTimeout(() => {
        scrub = null;
        void compact(); // settles on its own: a failure is logged inside, and the next drop or crossing tries again
      }, SCRUB_AFTER_MS);
      scrub.unref();
    },
    async close() {
      if (scrub) clearTimeout(scrub);
      scrub = null;
      if (lines > liveCount(table) || queued) await compact();
      await file.close();
    },
  };
}
