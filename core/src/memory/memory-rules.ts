// The memory arithmetic, in one place so the service, the compactor and the docs agree:
// - a touch sets weight = min(1, current weight + 0.25) and restarts the 30-day clock;
// - weight halves every 7 days without a touch (derived from last_seen, never stored twice);
// - days_left = 30 - whole days since last_seen, floored at 0.
import type { MemoryEntry } from '../store/documents';

export const DAY_MS = 24 * 3600_000;
export const FADE_DAYS = 30;
export const HALF_LIFE_DAYS = 7;
export const TOUCH_WEIGHT = 0.25;
export const NEW_WEIGHT = 0.25;
/** A fading key this heavy and touched this often is promoted to pinned by the compactor. */
export const PROMOTE_WEIGHT = 0.9;
export const PROMOTE_TOUCHES = 5;

export const daysLeft = (e: MemoryEntry, now: number) => Math.max(0, FADE_DAYS - Math.floor((now - e.last_seen) / DAY_MS));

export const effectiveWeight = (e: MemoryEntry, now: number) => {
  const days = Math.max(0, now - e.last_seen) / DAY_MS;
  return Math.round(e.weight * 0.5 ** (days / HALF_LIFE_DAYS) * 1000) / 1000;
};

/**
 * When the compactor must next look at an entry, so it reads only entries with something to
 * do (an index on this time), never every account's memory: a user's pin never; a fading key
 * when its days run out, or at once if this write made it heavy and touched enough to be
 * promoted (weight only grows by a touch, which sets this again); a key the compactor pinned
 * when it has gone unseen for FADE_DAYS.
 */
export function compactionDue(e: MemoryEntry): number | null {
  if (e.tier === 'pinned') return e.pinned_by === 'user' ? null : e.last_seen + FADE_DAYS * DAY_MS;
  if (e.touches >= PROMOTE_TOUCHES && effectiveWeight(e, e.last_seen) >= PROMOTE_WEIGHT) return e.last_seen;
  return e.last_seen + FADE_DAYS * DAY_MS;
}

/** The entry with its compaction time set: every entry core writes goes through here. */
export const withDue = (e: MemoryEntry): MemoryEntry => ({ ...e, due_at: compactionDue(e) });

export function touched(e: MemoryEntry | undefined, key: string, now: number): MemoryEntry {
  if (!e) return withDue({ key, tier: 'fading', pinned_by: null, weight: NEW_WEIGHT, note: '', touches: 1, last_seen: now });
  return withDue({ ...e, weight: Math.min(1, effectiveWeight(e, now) + TOUCH_WEIGHT), touches: e.touches + 1, last_seen: now });
}
