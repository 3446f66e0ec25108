// Authentication of API keys: a bearer secret resolved to its principal (from the kept keys
// when it can, without a promise; else read), and where an authenticated secret stands now.
// A secret works while its key is not revoked and, once rotated away, until its grace ends.
// Using a key notes its last use, at most once a minute per key.
import type { KeyKind, Scope } from '@presence/protocol';
import type { Clock } from '../clock/clock';
import { iso } from '../clock/clock';
import { PresenceError } from '../errors/presence-error';
import type { KeyRecord } from '../store/documents';
import type { StorePort } from '../store/store-port';
import type { KeyCache } from './key-cache';
import { hashSecret, looksLikeSecret } from './key-secret';

export type Principal = {
  keyId: string;
  accountId: string;
  kind: KeyKind;
  scopes: readonly Scope[];
  /** Set when authenticated with a rotated-away secret: the moment it stops working. */
  validUntil: number | null;
  /** Which of the key's secrets authenticated (its hash), so a later rotation can tell. */
  secretHash: string;
};

const LAST_USED_RESOLUTION_MS = 60_000;

/** The key's secret with this hash while it works at `now`: current, or rotated away but still in its grace. */
function workingSecret(k: KeyRecord, hash: string, now: number): KeyRecord['secrets'][number] | undefined {
  const s = k.secrets.find((x) => x.hash === hash);
  return s && (s.valid_until === null || s.valid_until > now) ? s : undefined;
}

/** The authentication methods of the key service, over the keys kept in `cache`. */
export function keyAuthMethods({ store, clock, cache }: { store: StorePort; clock: Clock; cache: KeyCache }) {
  const findBySecretHash = (hash: string) => cache.find(hash, () => store.findKeyBySecretHash(hash));
  const lastUsedWritten = new Map<string, number>();

  /** The principal of `k` authenticated by its secret `s` now; notes the key's use. */
  function principalOf(k: KeyRecord, s: KeyRecord['secrets'][number], now: number): Principal {
    // last_used_at is advisory: write it at most once a minute per key, off the hot path.
    if (now - (lastUsedWritten.get(k.id) ?? 0) >= LAST_USED_RESOLUTION_MS) {
      lastUsedWritten.set(k.id, now);
      void store.updateKey(k.id, (rec) => ({ ...rec, last_used_at: iso(now) })).catch(() => undefined);
      // (The store's close() drains this write, so shutdown never cuts it in half.)
    }
    return { keyId: k.id, accountId: k.account_id, kind: k.kind, scopes: k.scopes, validUntil: s.valid_until, secretHash: s.hash };
  }

  return {
    /** Resolves a bearer secret to its principal, or throws 401 `auth` saying why. */
    async authenticate(secret: string | undefined): Promise<Principal> {
      if (!secret) throw new PresenceError('auth', 'missing Authorization: Bearer <key> header');
      if (!looksLikeSecret(secret))
        throw new PresenceError('auth', 'malformed key: expected prs_live_… or prs_test_… (or a surface token, prs_surface_…)');
      const hash = hashSecret(secret);
      const k = await findBySecretHash(hash);
      if (!k) throw new PresenceError('auth', 'unknown key');
      if (k.state === 'revoked') throw new PresenceError('auth', 'this key was revoked');
      const now = clock.now();
      const s = workingSecret(k, hash, now);
      if (!s) throw new PresenceError('auth', 'this key was rotated and its grace window has ended');
      return principalOf(k, s, now);
    },

    /**
     * The principal at once, without a promise, when the secret's key is kept in memory
     * (key-cache.ts: read within the last second and unchanged since) and the secret works;
     * undefined otherwise, and `authenticate` then reads the key and gives any refusal. The
     * common request's path: a promise is an allocation and a microtask turn.
     */
    authenticateAtOnce(secret: string): Principal | undefined {
      // A kept key was found by this very hash, so the secret has its shape (no check needed).
      const hash = hashSecret(secret);
      const k = cache.known(hash);
      if (!k || k.state === 'revoked') return undefined;
      const now = clock.now();
      const s = workingSecret(k, hash, now);
      return s ? principalOf(k, s, now) : undefined;
    },

    /**
     * Where an authenticated secret stands now: null when it no longer works (key revoked,
     * secret expired or gone), else when it stops (null: not rotated away). A transport that
     * registers a long-lived stream asks this after registering, so a rotation or revocation
     * between authentication and registration is not missed.
     */
    async secretValidity(p: Pick<Principal, 'keyId' | 'secretHash'>): Promise<{ validUntil: number | null } | null> {
      const k = await store.getKey(p.keyId);
      if (!k || k.state === 'revoked') return null;
      const s = workingSecret(k, p.secretHash, clock.now());
      return s ? { validUntil: s.valid_until } : null;
    },
  };
}
