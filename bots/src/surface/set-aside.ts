// Records read back that do not fit their schema (records.ts): neither a crash of the bot at
// start nor a silent loss. Each is logged (the file, its line or record, what is wrong with it)
// and its line appended to links.rejected.jsonl before anything rewrites the file it came
// from, so an operator can mend it and append it back to links.jsonl. The rest of the table
// loads. The file is private like the others (a sealed key may be in it) and is left for the
// operator to remove. Rows of the PostgreSQL table that do not fit are logged and left out
// the same way (createRowCheck); the row itself stays where it is, for an operator to mend.
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { PRIVATE_FILE } from '@presence/core/files';
import type { z } from 'zod';
import type { Log } from './logging';

export const REJECTED_FILE = 'links.rejected.jsonl';
/** Misfits logged one by one at a start; past these, one line counts the rest (a schema that refuses every record logs 11 lines, not 10,000). */
const LOGGED_EACH = 10;

/** Where a misfit was (`line` in links.jsonl, `record` in links.json), the line that would restore it, and why it was refused. */
export type Misfit = { file: string; line?: number; record?: string; text: string; error: unknown };

/** What is wrong, by field: zod's messages name the path and the expected type, never the value (which may be sealed). */
export function problemOf(error: unknown): string {
  const issues = (error as Partial<z.ZodError>)?.issues;
  if (!Array.isArray(issues)) return String(error);
  return issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(record)'}: ${i.message}`).join('; ');
}

/**
 * A check of rows read from a table (the PostgreSQL bots store): the row's doc as its schema
 * parses it, or null (none, or one that does not fit). A misfit is logged once, until it fits
 * again: leading the stream reads the table again, and a notice reads a row again.
 */
export function createRowCheck(log: Log | undefined) {
  const misfits = new Set<string>();
  return function fits<T>(schema: z.ZodType<T>, doc: unknown, record: string): T | null {
    if (doc === undefined || doc === null) return null;
    const parsed = schema.safeParse(doc);
    if (parsed.success) {
      misfits.delete(record);
      return parsed.data;
    }
    if (!misfits.has(record))
      log?.('warn', 'a bots row does not fit its schema: left out (the row is kept)', { record, problem: problemOf(parsed.error) });
    misfits.add(record);
    return null;
  };
}

/** Keeps the misfits' lines in links.rejected.jsonl (durably) and logs them; nothing when there are none. */
export function setAside(dir: string, misfits: readonly Misfit[], log: Log | undefined): void {
  if (misfits.length === 0) return;
  const fd = openSync(path.join(dir, REJECTED_FILE), 'a', PRIVATE_FILE);
  try {
    writeSync(fd, misfits.map((m) => `${m.text}\n`).join(''));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  for (const m of misfits.slice(0, LOGGED_EACH)) {
    log?.('warn', `a record in ${m.file} does not fit its schema: left out, kept in ${REJECTED_FILE}`, {
      ...(m.line === undefined ? { record: m.record } : { line: m.line }),
      problem: problemOf(m.error),
    });
  }
  if (misfits.length > LOGGED_EACH) {
    log?.('warn', `${misfits.length - LOGGED_EACH} more records do not fit their schema: left out, kept in ${REJECTED_FILE}`, {
      total: misfits.length,
    });
  }
}
