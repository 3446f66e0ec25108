// The bots' file table as a change log (links.jsonl): one JSON line per change — a link set or
// dropped, a card set or dropped, the surface cursor moved — so a change writes one line, and
// costs the same whether ten users are linked or ten thousand (cost follows work). Each line
// holds the whole new value of what it names (never a delta), so replaying a line twice
// changes nothing: a compaction that snapshots a change whose line is still on its way is
// harmless. Reading replays the lines in order; compaction rewrites the file to the live
// records, one line each. The table of an earlier version (links.json, one document) is read
// here too, to be carried over. Every record read is parsed with its schema (records.ts).
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CardRecord, LinkRecord } from './records';
import type { Misfit } from './set-aside';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One line of links.jsonl; `v` null drops the record named `id`. */
export const LinkLogEntry = z.discriminatedUnion('k', [
  z.object({ k: z.literal('link'), id: z.string(), v: LinkRecord.nullable() }),
  z.object({ k: z.literal('card'), id: z.string(), v: CardRecord.nullable() }),
  z.object({ k: z.literal('cursor'), v: z.number() }),
]);
export type LinkLogEntry = z.infer<typeof LinkLogEntry>;

/** What the log holds once replayed: links by `<surface>:<user id>`, cards by `<owner>|<confirm id>`. */
export type LinkTable = {
  links: Map<string, LinkRecord>;
  cards: Map<string, CardRecord>;
  /** Where the surface stream (GET /v1/surface/events) resumes. */
  surfaceCursor: number | undefined;
};

export const emptyTable = (): LinkTable => ({ links: new Map(), cards: new Map(), surfaceCursor: undefined });

export function applyEntry(table: LinkTable, e: LinkLogEntry): void {
  if (e.k === 'cursor') table.surfaceCursor = e.v;
  else if (e.k === 'link') e.v === null ? table.links.delete(e.id) : table.links.set(e.id, e.v);
  else e.v === null ? table.cards.delete(e.id) : table.cards.set(e.id, e.v);
}

/** The live records, one entry each: what a compaction keeps. */
export function liveEntries(table: LinkTable): LinkLogEntry[] {
  const out: LinkLogEntry[] = [];
  for (const [id, v] of table.links) out.push({ k: 'link', id, v });
  for (const [id, v] of table.cards) out.push({ k: 'card', id, v });
  if (table.surfaceCursor !== undefined) out.push({ k: 'cursor', v: table.surfaceCursor });
  return out;
}

export const liveCount = (table: LinkTable) => table.links.size + table.cards.size + (table.surfaceCursor === undefined ? 0 : 1);

/** The records of one map of links.json that fit `schema`; the others go to `onMisfit`, as the log line that would restore them. */
function recordsOf<T>(k: 'link' | 'card', doc: unknown, schema: z.ZodType<T>, onMisfit: (m: Misfit) => void): Map<string, T> {
  const out = new Map<string, T>();
  for (const [id, v] of Object.entries(isObject(doc) ? doc : {})) {
    const parsed = schema.safeParse(v);
    if (parsed.success) out.set(id, parsed.data);
    else onMisfit({ file: 'links.json', record: `${k} ${id}`, text: JSON.stringify({ k, id, v }), error: parsed.error });
  }
  return out;
}

/**
 * The table of links.json (version 1: one document rewritten whole), or null when there is
 * none. Read once, at the open that carries it over to links.jsonl; a record of the wrong
 * shape goes to `onMisfit` (the rest is carried over).
 */
export function readDocumentV1(file: string, onMisfit: (m: Misfit) => void): LinkTable | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  const doc: unknown = JSON.parse(text);
  if (!isObject(doc) || doc.version !== 1 || !isObject(doc.links)) throw new Error(`${file} is not a presence-bots link table`);
  return {
    links: recordsOf('link', doc.links, LinkRecord, onMisfit),
    cards: recordsOf('card', doc.cards, CardRecord, onMisfit),
    surfaceCursor: typeof doc.surface_cursor === 'number' ? doc.surface_cursor : undefined,
  };
}

/**
 * The table in a links.jsonl's text, as plain objects, for a look from outside the process
 * that owns the file (tests, an operator): a last line still being written is left out.
 */
export function replayLinkLog(text: string): {
  links: Record<string, LinkRecord>;
  cards: Record<string, CardRecord>;
  surface_cursor?: number;
} {
  const table = emptyTable();
  const lines = text.split('\n').filter((l) => l !== '');
  for (const [i, line] of lines.entries()) {
    let entry: LinkLogEntry;
    try {
      entry = LinkLogEntry.parse(JSON.parse(line));
    } catch (e) {
      if (i === lines.length - 1 && !text.endsWith('\n')) break;
      throw e;
    }
    applyEntry(table, entry);
  }
  return {
    links: Object.fromEntries(table.links),
    cards: Object.fromEntries(table.cards),
    ...(table.surfaceCursor === undefined ? {} : { surface_cursor: table.surfaceCursor }),
  };
}
