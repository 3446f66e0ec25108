// API keys: creation, listing, rotation with a grace window, instant revocation and
// authentication (key-authentication.ts). Listeners hear about revocations and rotations so
// transports can close live streams: at once on revocation, at the end of the grace window
// for a retired secret.
// Keys are always read from and written to the live store: a credential cannot be rehearsed
// in the test keys' overlay (a key kept there would never authenticate), so what a test key
// may do with keys is decided here, once (see `mayChangeCredentials`).
import type { KeyKind, KeySecret, KeyView, Scope } from '@presence/protocol';
import { NO_NOTICES } from '../cache/recent-cache';
import type { Clock } from '../clock/clock';
import { iso } from '../clock/clock';
import type { KeyChangeHandlers } from '../cluster/cluster-port';
import { notFound, PresenceError } from '../errors/presence-error';
import { type AccountLimits, accountLimits, assertRoom } from '../limits/account-limits';
import type { KeyRecord } from '../store/documents';
import type { StorePort } from '../store/store-port';
import { keyAuthMethods, type Principal } from './key-authentication';
import { createKeyCache } from './key-cache';
import { hashSecret, kindOfSecret, looksLikeSecret, newKeyId, newSecret } from './key-secret';

export type { Principal } from './key-authentication';

/** A rotation retired `secretHash` of key `keyId`: it stops working at `validUntil`. */
export type SecretRetired = { keyId: string; secretHash: string; validUntil: number };

export type KeyService = ReturnType<typeof createKeyService>;

/**
 * The one place a key's kind decides what it may do with credentials. A test key changes
 * nothing real, and keys are real however they are made: so it may not rotate or revoke
 * keys nor make link codes (a link issues a live key), and creating a key answers it a
 * would-be key that is not stored.
 */
export const mayChangeCredentials = (by: Pick<Principal, 'kind'>) => by.kind === 'live';

/** Throws 403 `scope` when `by` is a test key; `why` says what makes `what` real. */
export function assertMayChangeCredentials(by: Pick<Principal, 'kind'>, what: string, why: string) {
  if (!mayChangeCredentials(by)) throw new PresenceError('scope', `test keys cannot ${what}: ${why}`);
}

const keyManagement = 'key management changes real credentials; use a live admin key';

/** What createKeyService is built from. */
type KeyServiceDeps = {
  store: StorePort;
  clock: Clock;
  /** `keys` caps the account's keys that are not revoked (default `accountLimits`). */
  limits?: Pick<AccountLimits, 'keys'>;
  /**
   * Key changes on every server (PostgreSQL): the kept keys (key-cache.ts) are dropped as they
   * change anywhere. Absent (embedded), this service's own changes are the only ones.
   */
  changes?: { subscribe(h: KeyChangeHandlers): () => void };
};

export function createKeyService({ store, clock, limits = accountLimits, changes }: KeyServiceDeps) {
  const cache = createKeyCache({ changes: changes ?? NO_NOTICES, now: () => clock.now() });
  const revokeListeners = new Set<(keyId: string) => void>();
  const rotateListeners = new Set<(retired: SecretRetired) => void>();

  const view = (k: KeyRecord): KeyView => {
    const current = k.secrets.find((s) => s.valid_until === null) ?? k.secrets.at(-1);
    const graceUntil = Math.max(0, ...k.secrets.map((s) => s.valid_until ?? 0).filter((t) => t > clock.now()));
    return {
      id: k.id,
      kind: k.kind,
      name: k.name,
      scopes: k.scopes,
      last4: current?.last4 ?? '',
      state: k.state,
      created_at: k.created_at,
      last_used_at: k.last_used_at,
      grace_until: graceUntil > 0 ? iso(graceUntil) : null,
    };
  };

  async function ownedKey(accountId: string, id: string) {
    const k = await store.getKey(id);
    if (!k || k.account_id !== accountId) throw notFound(`no key ${id} on this account`);
    return k;
  }

  /**
   * Refuses (409, limit keys_per_account) when the account holds its cap of keys that are not
   * revoked. Read, then inserted: creations racing at the cap may pass it by the few in
   * flight, which still bounds the account (each needs an admin key's request).
   */
  async function assertKeyRoom(accountId: string, more = '') {
    const held = (await store.listKeys(accountId)).filter((k) => k.state !== 'revoked').length;
    assertRoom('keys', held, limits.keys, more);
  }

  async function create(
    accountId: string,
    input: { kind: KeyKind; name: string; scopes: readonly Scope[] },
    secret: string = newSecret(input.kind),
    refusal = '',
  ): Promise<KeySecret> {
    if (!looksLikeSecret(secret) || kindOfSecret(secret) !== input.kind) throw new Error(`not a ${input.kind} key secret`);
    await assertKeyRoom(accountId, refusal);
    const record: KeyRecord = {
      id: newKeyId(),
      account_id: accountId,
      kind: input.kind,
      name: input.name,
      scopes: [...input.scopes],
      secrets: [{ hash: hashSecret(secret), last4: secret.slice(-4), valid_until: null }],
      state: 'active',
      created_at: iso(clock.now()),
      last_used_at: null,
      revoked_at: null,
    };
    await store.insertKey(record);
    return { ...view(record), secret };
  }

  return {
    /**
     * `secret` is for the first start's keys, saved before they are stored (see bootstrap);
     * `refusal` is added to the detail of a refusal at the cap (what else the caller should do).
     */
    create,

    /**
     * POST /v1/keys: a key made by `by`; a test key gets a would-be key (all zeros), nothing
     * stored, or the refusal a live key would get at the cap.
     */
    async issue(by: Principal, input: { kind: KeyKind; name: string; scopes: readonly Scope[] }): Promise<KeySecret> {
      if (mayChangeCredentials(by)) return create(by.accountId, input);
      await assertKeyRoom(by.accountId);
      return {
        id: 'key_0000000000000000',
        kind: input.kind,
        name: input.name,
        scopes: [...input.scopes],
        last4: '0000',
        state: 'active',
        created_at: iso(clock.now()),
        last_used_at: null,
        grace_until: null,
        secret: `prs_${input.kind}_${'0'.repeat(40)}`,
      };
    },

    /** Whether this secret belongs to a stored key (in any state). */
    async isStored(secret: string): Promise<boolean> {
      return (await store.findKeyBySecretHash(hashSecret(secret))) !== null;
    },

    async list(accountId: string): Promise<KeyView[]> {
      return (await store.listKeys(accountId)).map(view);
    },

    async rotate(by: Principal, id: string, graceS: number): Promise<KeySecret> {
      assertMayChangeCredentials(by, 'rotate keys', keyManagement);
      const k = await ownedKey(by.accountId, id);
      if (k.state === 'revoked') throw new PresenceError('conflict', `key ${id} is revoked and cannot be rotated`);
      const now = clock.now();
      const secret = newSecret(k.kind);
      const validUntil = now + graceS * 1000;
      const retired: SecretRetired[] = [];
      const updated = await store.updateKey(id, (rec) => {
        retired.length = 0;
        return {
          ...rec,
          secrets: [
            // Earlier rotations keep their own, earlier, end; expired secrets are dropped.
            ...rec.secrets
              .map((s) => {
                if (s.valid_until !== null) return s;
                retired.push({ keyId: id, secretHash: s.hash, validUntil });
                return { ...s, valid_until: validUntil };
              })
              .filter((s) => (s.valid_until ?? Number.POSITIVE_INFINITY) > now),
            { hash: hashSecret(secret), last4: secret.slice(-4), valid_until: null },
          ],
        };
      });
      if (!updated) throw notFound(`no key ${id}`); // deleted with its account meanwhile
      cache.drop(id);
      for (const r of retired) for (const l of rotateListeners) l(r);
      return { ...view(updated), secret };
    },

    /** `id` is any key of the caller's account, itself included (DELETE /v1/keys/self). */
    async revoke(by: Principal, id: string): Promise<KeyView> {
      assertMayChangeCredentials(by, 'revoke keys', keyManagement);
      const k = await ownedKey(by.accountId, id);
      const updated =
        k.state === 'revoked' ? k : await store.updateKey(id, (rec) => ({ ...rec, state: 'revoked', revoked_at: iso(clock.now()) }));
      if (!updated) throw notFound(`no key ${id}`);
      cache.drop(id);
      for (const l of revokeListeners) l(id);
      return view(updated);
    },

    ...keyAuthMethods({ store, clock, cache }),

    /**
     * Key records changed on any server (PostgreSQL announces each at commit; nothing on an
     * embedded store, where every change is made here and told through onRevoke and onRotate).
     */
    onStoreChange(h: KeyChangeHandlers): () => void {
      return changes ? changes.subscribe(h) : () => undefined;
    },

    onRevoke(listener: (keyId: string) => void): () => void {
      revokeListeners.add(listener);
      return () => revokeListeners.delete(listener);
    },

    /** Called after a rotation, once per secret it retired (with the end of its grace). */
    onRotate(listener: (retired: SecretRetired) => void): () => void {
      rotateListeners.add(listener);
      return () => rotateListeners.delete(listener);
    },
  };
}
