// Open long-lived streams by key and secret, so revoking a key (or shutting down) closes them
// at once, and rotating a key closes the streams opened with the retired secret when its
// grace window ends — whether they were opened before the rotation or during the grace.
export type StreamRegistry = ReturnType<typeof createStreamRegistry>;

/** What authenticated a stream: the key, which of its secrets, and when that secret stops. */
export type StreamAuth = { keyId: string; secretHash: string; validUntil: number | null };

type Entry = { secretHash: string; validUntil: number | null; close: () => void; timer?: NodeJS.Timeout };

// setTimeout's ceiling; grace windows are at most a day, far below it.
const MAX_DELAY_MS = 2 ** 31 - 1;

export function createStreamRegistry({ now }: { now: () => number }) {
  const byKey = new Map<string, Set<Entry>>();

  function schedule(e: Entry, until: number) {
    if (e.validUntil !== null && e.validUntil <= until && e.timer) return; // an earlier end stands
    e.validUntil = until;
    clearTimeout(e.timer);
    e.timer = setTimeout(e.close, Math.min(MAX_DELAY_MS, Math.max(0, until - now())));
    e.timer.unref();
  }

  return {
    add(auth: StreamAuth, close: () => void): () => void {
      let set = byKey.get(auth.keyId);
      if (!set) {
        set = new Set();
        byKey.set(auth.keyId, set);
      }
      const entry: Entry = { secretHash: auth.secretHash, validUntil: null, close };
      set.add(entry);
      if (auth.validUntil !== null) schedule(entry, auth.validUntil);
      const s = set;
      return () => {
        clearTimeout(entry.timer);
        s.delete(entry);
        if (s.size === 0 && byKey.get(auth.keyId) === s) byKey.delete(auth.keyId);
      };
    },
    /** A rotation retired this secret: its streams end when the grace window does. */
    retire(r: { keyId: string; secretHash: string; validUntil: number }) {
      for (const e of byKey.get(r.keyId) ?? []) if (e.secretHash === r.secretHash) schedule(e, r.validUntil);
    },
    /** The distinct key and secret pairs of the open streams (for re-checking them). */
    secrets(): { keyId: string; secretHash: string }[] {
      const out: { keyId: string; secretHash: string }[] = [];
      for (const [keyId, set] of byKey)
        for (const hash of new Set([...set].map((e) => e.secretHash))) out.push({ keyId, secretHash: hash });
      return out;
    },
    /** This secret stopped working (found by a re-check): its streams end now. */
    closeSecret(keyId: string, secretHash: string) {
      for (const e of [...(byKey.get(keyId) ?? [])]) if (e.secretHash === secretHash) e.close();
    },
    closeKey(keyId: string) {
      for (const e of [...(byKey.get(keyId) ?? [])]) e.close();
    },
    closeAll() {
      for (const set of [...byKey.values()]) for (const e of [...set]) e.close();
    },
    get size() {
      let n = 0;
      for (const s of byKey.values()) n += s.size;
      return n;
    },
  };
}
