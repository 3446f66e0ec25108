// The test keys' overlay (overlay-store.ts) of memory entries: overlaid entry by entry, as
// records are (overlay-records.ts), with the account's count as a test key sees it.
import type { MemoryEntry } from './documents';
import type { MemoryPeek, MemoryPort } from './memory-port';
import { applied, changeFrom, overlaid, remember } from './overlay-changes';
import type { OverlayContext } from './overlay-context';

export function overlayMemory(ctx: OverlayContext): MemoryPort {
  const { live, changesOf, own, lock, maxRecords } = ctx;
  /** The named entries as a test key sees them, and the count of every entry it sees. */
  async function peekOverlaid(accountId: string, keys: readonly string[]): Promise<MemoryPeek> {
    const changes = changesOf(accountId, 'memory');
    const changed = [...(changes?.keys() ?? [])];
    const base = await live.peekMemory(accountId, [...new Set([...keys, ...changed])]);
    let count = base.count;
    for (const k of changed) count += Number(applied(base.found.get(k) ?? null, changes?.get(k)) !== null) - Number(base.found.has(k));
    const found = new Map<string, MemoryEntry>();
    for (const k of keys) {
      const e = applied(base.found.get(k) ?? null, changes?.get(k));
      if (e) found.set(k, e);
    }
    return { found, count };
  }
  return {
    async readMemory(accountId) {
      return overlaid(await live.readMemory(accountId), changesOf(accountId, 'memory'), (e) => e.key);
    },
    async peekMemory(accountId, keys) {
      return peekOverlaid(accountId, keys);
    },
    changeMemory(accountId, keys, decide) {
      return lock(`memory:${accountId}`, async () => {
        const current = await peekOverlaid(accountId, keys);
        const { put = [], remove = [], result } = decide(current);
        const live_ = await live.peekMemory(accountId, [...put.map((e) => e.key), ...remove]);
        const mine = own(accountId).records.memory;
        for (const e of put) remember(mine, e.key, changeFrom(live_.found.get(e.key) ?? null, e), maxRecords);
        for (const k of remove) remember(mine, k, changeFrom(live_.found.get(k) ?? null, null), maxRecords);
        return result;
      });
    },
    async memoryDue() {
      // The compactor works on live memory only; a test key's entries are the overlay's to drop.
      return [];
    },
  };
}
