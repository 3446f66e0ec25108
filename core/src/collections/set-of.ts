// The set under a key of a map of sets, made on first use: the index shape of the embedded
// stores (a surface's live links per account, webhook endpoints per account) and of the events
// log's listeners per channel.
export function setOf<K, V>(map: Map<K, Set<V>>, key: K): Set<V> {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  return set;
}
