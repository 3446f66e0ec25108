// How the test keys' overlay records a change to one live record, and reads it back: the
// whole record (one the overlay made), the fields that differ (a patch) or a tombstone. Pure
// functions over plain maps, so the overlay store (overlay-store.ts) keeps only the port.
import { isDeepStrictEqual } from 'node:util';

export type Change<T> = { whole: T } | { patch: Partial<T> } | { gone: true };
export type Changes<T> = Map<string, Change<T>>;

/** Reads hand out immutable snapshots, as the port promises. */
export function freeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) freeze(v);
  }
  return value;
}
export const copy = <T>(value: T): T => freeze(structuredClone(value));

export function applied<T extends object>(live: T | null, c: Change<T> | undefined): T | null {
  if (!c) return live;
  if ('gone' in c) return null;
  if ('whole' in c) return c.whole;
  return live && freeze({ ...live, ...c.patch });
}

/** What turns the live record into `next`: null when they are the same (the record reads live). */
export function changeFrom<T extends object>(live: T | null, next: T | null): Change<T> | null {
  if (next === null) return live ? { gone: true } : null;
  if (!live || Object.keys(live).some((k) => !(k in next))) return { whole: copy(next) };
  const patch: Partial<T> = {};
  for (const k of Object.keys(next) as (keyof T)[]) if (!isDeepStrictEqual(next[k], live[k])) patch[k] = next[k];
  return Object.keys(patch).length === 0 ? null : { patch: copy(patch) };
}

/** Sets (or, for null, clears) an entry as the newest and forgets the oldest beyond `cap`. */
export function remember<V>(m: Map<string, V>, id: string, v: V | null, cap: number) {
  m.delete(id);
  if (v === null) return;
  m.set(id, v);
  for (const oldest of m.keys()) {
    if (m.size <= cap) break;
    m.delete(oldest);
  }
}

/** A live list with one account's changes applied, then the records the overlay made. */
export function overlaid<T extends object>(rows: readonly T[], changes: Changes<T> | undefined, idOf: (r: T) => string): T[] {
  if (!changes || changes.size === 0) return [...rows];
  const seen = new Set<string>();
  const out: T[] = [];
  for (const r of rows) {
    seen.add(idOf(r));
    const v = applied(r, changes.get(idOf(r)));
    if (v) out.push(v);
  }
  for (const [id, c] of changes) if (!seen.has(id) && 'whole' in c) out.push(c.whole);
  return out;
}
