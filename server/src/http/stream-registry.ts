// Open long-lived streams by key, so revoking a key (or shutting down) closes them at once.
export type StreamRegistry = ReturnType<typeof createStreamRegistry>;

export function createStreamRegistry() {
  const byKey = new Map<string, Set<() => void>>();
  return {
    add(keyId: string, close: () => void): () => void {
      let set = byKey.get(keyId);
      if (!set) {
        set = new Set();
        byKey.set(keyId, set);
      }
      set.add(close);
      return () => {
        set.delete(close);
        if (set.size === 0) byKey.delete(keyId);
      };
    },
    closeKey(keyId: string) {
      for (const close of [...(byKey.get(keyId) ?? [])]) close();
    },
    closeAll() {
      for (const set of [...byKey.values()]) for (const close of [...set]) close();
    },
    get size() {
      let n = 0;
      for (const s of byKey.values()) n += s.size;
      return n;
    },
  };
}
