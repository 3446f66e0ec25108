// links.jsonl on disk: opened (replayed, or carried over from links.json), a line appended per
// change through core's append log (group commit: an answered change is fdatasync'ed; a line
// torn by a crash is cut at the next open), and compacted — rewritten atomically to the live
// records (link-log-compaction.ts) — once it holds more than twice as many lines as live
// records (plus a floor), so a compaction's cost is spread over at least as many changes as it
// rewrites. A dropped link or secret leaves the disk within a second (a scrub). Open and close
// compact too when the log holds anything dead. A record read that does not fit its schema is
// set aside (set-aside.ts) and the rest loads.
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type AppendLog, createAppendLog } from '@presence/core/files';
import { applyEntry, emptyTable, LinkLogEntry, liveCount, liveEntries, readDocumentV1 } from './link-log';
import { createCompaction } from './link-log-compaction';
import type { Log } from './logging';
import { type Misfit, setAside } from './set-aside';

export const LINKS_FILE = 'links.jsonl';
/** The table as versions before the change log kept it (one document): carried over at open, then removed. */
export const LEGACY_LINKS_FILE = 'links.json';
/** Lines a log may hold beyond twice its live records before it is compacted. */
export const COMPACT_FLOOR = 1_000;

export type LinkLogFile = Awaited<ReturnType<typeof openLinkLogFile>>;

/** The log and the table it holds; links.json, when that is all there is, is carried over first. */
async function load(dir: string, file: AppendLog<LinkLogEntry>, log: Log | undefined) {
  const legacy = path.join(dir, LEGACY_LINKS_FILE);
  const misfits: Misfit[] = [];
  if (existsSync(path.join(dir, LINKS_FILE))) {
    const entries = await file.readAll((m) => misfits.push({ file: LINKS_FILE, ...m }));
    // Kept aside before the compaction at open rewrites them out of links.jsonl.
    setAside(dir, misfits, log);
    const table = emptyTable();
    for (const e of entries) applyEntry(table, e);
    // Left by a carry-over that stopped after links.jsonl was durable and before this removal.
    rmSync(legacy, { force: true });
    return { table, lines: entries.length + misfits.length };
  }
  const table = readDocumentV1(legacy, (m) => misfits.push(m));
  if (!table) return { table: emptyTable(), lines: 0 };
  setAside(dir, misfits, log);
  // links.json goes only once links.jsonl is durable (written, fsynced, renamed in place).
  await file.rewrite(() => liveEntries(table));
  rmSync(legacy);
  log?.('info', 'carried the link table over from links.json to links.jsonl (links.json removed)', { links: table.links.size });
  return { table, lines: liveCount(table) };
}

export async function openLinkLogFile(dir: string, { log, now = Date.now }: { log?: Log; now?: () => number } = {}) {
  const file = createAppendLog(path.join(dir, LINKS_FILE), LinkLogEntry) as AppendLog<LinkLogEntry>;
  const { table, lines: linesAtOpen } = await load(dir, file, log);
  let lines = linesAtOpen;
  const compaction = createCompaction({
    file,
    table,
    now,
    log,
    onKept: (kept) => {
      lines = kept;
    },
  });
  if (lines > liveCount(table)) await compaction.compact();

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
      if (lines > 2 * liveCount(table) + COMPACT_FLOOR) await compaction.ensure();
    },
    /** Something private was dropped: compact soon, so it leaves the disk, once for all drops meanwhile. */
    scrubSoon: compaction.scrubSoon,
    async close() {
      compaction.stopScrub();
      // The last chance before the process ends: tried even while backing off.
      if (lines > liveCount(table) || compaction.pending()) await compaction.compact(true);
      await file.close();
    },
  };
}
