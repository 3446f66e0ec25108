// A test key's intents: the same operations as the durable store, kept in memory only (the
// same per-account index, without a file), so test-mode holds and confirmations behave like
// live ones and vanish on restart.
import type { IntentRecord } from '../store/documents';
import { createIntentIndex, type IntentIndex } from '../store/intent-index';
import type { IntentStore } from './intent-executor';

export function createSandboxIntentStore(): IntentStore & { all(): IntentRecord[] } {
  const accounts = new Map<string, IntentIndex>();
  const indexOf = (accountId: string) => {
    let ix = accounts.get(accountId);
    if (!ix) {
      ix = createIntentIndex();
      accounts.set(accountId, ix);
    }
    return ix;
  };
  return {
    async createIntent(r) {
      indexOf(r.account_id).put(structuredClone(r));
    },
    async getIntent(accountId, id) {
      return indexOf(accountId).byId.get(id) ?? null;
    },
    async findIntentByConfirmId(accountId, confirmId) {
      return indexOf(accountId).byConfirmId(confirmId);
    },
    async findIntentByIdempotencyKey(accountId, key) {
      return indexOf(accountId).byIdempotencyKey(key);
    },
    async transitionIntent(accountId, id, from, to, patch = {}) {
      const ix = indexOf(accountId);
      const r = ix.byId.get(id);
      if (!r || !from.includes(r.state)) return null;
      const next = { ...r, ...structuredClone(patch), state: to };
      ix.put(next);
      return next;
    },
    async listIntents(accountId, filter = {}) {
      return indexOf(accountId).list(filter.states);
    },
    async spentSince(accountId, since) {
      return indexOf(accountId).spentSince(since);
    },
    all: () => [...accounts.values()].flatMap((ix) => [...ix.byId.values()]),
  };
}
