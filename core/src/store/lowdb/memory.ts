// Memory entries: an append-only log per account (data/memory/<account>.jsonl), one line per
// entry written or removed (the newest line for a key wins), so a pin writes one line whatever
// the account keeps. The log is compacted (rewritten with the live entries) once dead lines
// outnumber live ones, which keeps that cost amortized O(1) per write. A data directory from
// before keeps one document per account (<account>.json): it is turned into a log the first
// time the account's memory is opened.
//
// A change is decided on the newest version (committed or queued), queued at once, and
// published to readers when its line is durable, like event appends: concurrent changes of
// one account share one sync and never lose each other's entries.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { MemoryEntry, memoryDueAt } from '../documents';
import type { MemoryPort } from '../memory-port';
import type { MemoryPeek } from '../store-port';
import type { Agenda } from './agenda';
import { deepFreeze } from './documents-engine';
import { readJson } from './files';
import { accountLogs, type StoreContext } from './per-account';

const MemoryLine = z.object({ key: z.string(), entry: MemoryEntry.nullable() });
type MemoryLine = z.infer<typeof MemoryLine>;
const LegacyDoc = z.object({ entries: z.array(MemoryEntry) });

/** Each account's memory is an open append-only log: close() closes them. */
export type MemoryFamily = MemoryPort & { close(): Promise<void> };

const earliestDue = (entries: Iterable<MemoryEntry>): number | null => {
  let min: number | null = null;
  for (const e of entries) {
    const d = memoryDueAt(e);
    if (d !== null && (min === null || d < min)) min = d;
  }
  return min;
};

export function openMemory(ctx: StoreContext, agenda: Agenda): MemoryFamily {
  const memoryLog = accountLogs(ctx, 'memory', MemoryLine, async (file, accountId) => {
    const legacy = path.join(ctx.root, 'memory', `${accountId}.json`);
    let lines = await file.readAll();
    if (existsSync(legacy)) {
      // The log first, durably, then the document goes: a crash in between redoes this.
      const { entries } = LegacyDoc.parse(await readJson(legacy));
      lines = entries.map((entry) => ({ key: entry.key, entry }));
      await file.rewrite(() => lines);
      await rm(legacy, { force: true });
    }
    const committed = new Map<string, MemoryEntry>();
    for (const l of lines) {
      if (l.entry) committed.set(l.key, deepFreeze(l.entry));
      else committed.delete(l.key);
    }
    return { file, committed, draft: new Map(committed), lines: lines.length, queued: Promise.resolve() };
  });
  type Log = Parameters<Parameters<typeof memoryLog.use>[1]>[0];

  const compactIfDue = (log: Log) => {
    if (log.lines <= 2 * log.committed.size + 64) return;
    log.lines = log.committed.size;
    void log.file
      .rewrite(
        () => [...log.committed.values()].map((entry) => ({ key: entry.key, entry })),
        (kept) => {
          log.lines = kept.length;
        },
      )
      .catch(() => undefined);
  };

  const peek = (entries: ReadonlyMap<string, MemoryEntry>, keys: readonly string[]): MemoryPeek => {
    const found = new Map<string, MemoryEntry>();
    for (const k of keys) {
      const e = entries.get(k);
      if (e) found.set(k, e);
    }
    return { found, count: entries.size };
  };

  return {
    close: memoryLog.close,
    async readMemory(accountId) {
      return memoryLog.use(accountId, (log) => [...log.committed.values()]);
    },
    async peekMemory(accountId, keys) {
      return memoryLog.use(accountId, (log) => peek(log.committed, keys));
    },
    changeMemory: (accountId, keys, decide) =>
      memoryLog.use(accountId, async (log) => {
        const { put = [], remove = [], result } = decide(peek(log.draft, keys));
        const lines: MemoryLine[] = [
          ...put.map((e) => ({ key: e.key, entry: deepFreeze(structuredClone(e)) })),
          ...remove.filter((k) => log.draft.has(k)).map((key) => ({ key, entry: null })),
        ];
        if (lines.length === 0) return result;
        // Published to the draft at once, so the next change decides on top of this one.
        for (const l of lines) {
          if (l.entry) log.draft.set(l.key, l.entry);
          else log.draft.delete(l.key);
        }
        // The agenda hears of work due before the line that makes it due is written, and lines
        // are queued in the order their changes were decided (the newest line for a key wins).
        const due = earliestDue(put);
        const told = due !== null ? agenda.lower('memory', accountId, due) : undefined;
        const previous = log.queued;
        let queued!: () => void;
        log.queued = new Promise<void>((resolve) => {
          queued = resolve;
        });
        try {
          await previous;
          await told;
          const written = log.file.append(lines, () => {
            for (const l of lines) {
              if (l.entry) log.committed.set(l.key, l.entry);
              else log.committed.delete(l.key);
            }
            log.lines += lines.length;
          });
          queued();
          await written;
        } catch (e) {
          queued();
          // Lines that failed never reach readers; the draft goes back to what is on disk for
          // them, unless a later change already replaced them.
          for (const l of lines) {
            if ((log.draft.get(l.key) ?? null) !== l.entry) continue;
            const kept = log.committed.get(l.key);
            if (kept) log.draft.set(l.key, kept);
            else log.draft.delete(l.key);
          }
          throw e;
        }
        compactIfDue(log);
        return result;
      }),
    async memoryDue(now, limit) {
      const out: { account_id: string; key: string }[] = [];
      for (const accountId of agenda.due('memory', now)) {
        if (out.length >= limit) break;
        await memoryLog.use(accountId, async ({ committed }) => {
          let any = false;
          for (const e of committed.values()) {
            const d = memoryDueAt(e);
            if (d === null || d > now) continue;
            any = true;
            if (out.length < limit) out.push({ account_id: accountId, key: e.key });
          }
          // Nothing due after all: the entry moves to the account's next due time.
          if (!any) await agenda.set('memory', accountId, earliestDue(committed.values()));
        });
      }
      return out;
    },
  };
}

/** The account's earliest due time, for indexing a data directory from before the agenda. */
export async function memoryAgendaOf(family: MemoryFamily, accountId: string): Promise<number | null> {
  return earliestDue(await family.readMemory(accountId));
}
