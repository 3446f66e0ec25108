// The presence itself: what GET /v1/presence/me shows and what PATCH may change, in the
// store of the caller's key kind (a test key's PATCH lands in the overlay: create-core).
import { defaultPolicy, type Preferences, type PresencePatch, type PresenceView, preferencesOverLimit } from '@presence/protocol';
import { notFound, PresenceError } from '../errors/presence-error';
import type { Principal } from '../keys/key-service';
import type { MemoryService } from '../memory/memory-service';
import { spendLabel } from '../policy/spend-label';
import type { StoreFor } from '../store/overlay-store';
import type { AccountViewCache } from './account-view-cache';

/**
 * Merges a PATCH's preferences into the stored ones (null removes a key). The limits hold for
 * the result: a patch within them can still be refused when what it adds to makes the whole
 * too large. A patch that only removes keys is always taken, so preferences kept over the
 * limits by an earlier version can be trimmed.
 */
export function mergePreferences(current: Preferences, patch: PresencePatch['preferences']): Preferences {
  if (!patch) return current;
  const merged: Preferences = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  const onlyRemoves = Object.values(patch).every((v) => v === null);
  const over = onlyRemoves ? null : preferencesOverLimit(merged);
  if (over) throw new PresenceError('invalid_request', `${over}; remove keys with null first`);
  return merged;
}

export function createPresenceService({
  storeFor,
  memory,
  chainName,
  views,
}: {
  storeFor: StoreFor;
  memory: MemoryService;
  chainName: () => string;
  /** Live accounts' views kept in memory; null reads the store each time. */
  views: AccountViewCache<PresenceView> | null;
}) {
  /** A kept view at once, without a promise (every GET /v1/presence/me); else read. */
  function me(p: Principal): PresenceView | Promise<PresenceView> {
    if (!views || p.kind !== 'live') return read(p);
    return views.known(p.accountId) ?? views.get(p.accountId, () => read(p));
  }
  async function read(p: Principal): Promise<PresenceView> {
    const a = await storeFor(p.kind).getAccount(p.accountId);
    if (!a) throw notFound('this key’s account no longer exists');
    return {
      name: a.presence.name,
      route: { model: a.presence.model },
      memory: await memory.counts(p),
      wallet: { chain: chainName(), spend: spendLabel(a.policy ?? defaultPolicy) },
      preferences: a.presence.preferences,
      mode: p.kind,
    };
  }
  return {
    me,
    async patch(p: Principal, patch: PresencePatch): Promise<PresenceView> {
      // Merged (and checked) inside the update, against the committed document: two PATCHes
      // racing cannot together pass the limits that each was checked against alone.
      const updated = await storeFor(p.kind).updateAccount(p.accountId, (a) => ({
        ...a,
        presence: {
          name: patch.name ?? a.presence.name,
          model: patch.route?.model ?? a.presence.model,
          preferences: mergePreferences(a.presence.preferences, patch.preferences),
        },
      }));
      if (!updated) throw notFound('this key’s account no longer exists');
      return me(p);
    },
  };
}
