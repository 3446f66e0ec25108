// A cache whose entries live for one block: the first read at a new block drops everything
// from older blocks. Values are promises so concurrent callers share one computation; a
// failed computation is forgotten so the next caller retries.
export interface BlockCache<V> {
  get(block: bigint, key: string, compute: () => Promise<V>): Promise<V>;
}

export function createBlockCache<V>(): BlockCache<V> {
  let currentBlock = -1n;
  let entries = new Map<string, Promise<V>>();
  return {
    get(block, key, compute) {
      if (block > currentBlock) {
        currentBlock = block;
        entries = new Map();
      } else if (block < currentBlock) {
        // A caller pinned to an older block (or a lagging RPC node): compute, do not cache.
        return compute();
      }
      let hit = entries.get(key);
      if (!hit) {
        const map = entries;
        hit = compute();
        map.set(key, hit);
        hit.catch(() => map.delete(key));
      }
      return hit;
    },
  };
}
