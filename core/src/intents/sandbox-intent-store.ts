// A test key's intents: the same operations as the durable store, kept in memory only, so
// test-mode holds and confirmations behave like live ones and vanish on restart.
import type { IntentRecord } from '../store/documents';
import type { IntentStore } from './intent-executor';

export function createSandboxIntentStore(): IntentStore & { all(): IntentRecord[] } {
  const byId = new Map<string, IntentRecord>();
  const find = (pred: (r: IntentRecord) => boolean) => [...byId.values()].find(pred) ?? null;
  return {
    async createIntent(r) {
      byId.set(r.id, structuredClone(r));
    },
    async getIntent(accountId, id) {
      const r = byId.get(id);
      return r && r.account_id === accountId ? r : null;
    },
    async findIntentByConfirmId(accountId, confirmId) {
      return find((r) => r.account_id === accountId && r.confirm_id === confirmId);
    },
    async findIntentByIdempotencyKey(accountId, key) {
      return find((r) => r.account_id === accountId && r.idempotency_key === key);
    },
    async transitionIntent(accountId, id, from, to, patch = {}) {
      const r = byId.get(id);
      if (!r || r.account_id !== accountId || !from.includes(r.state)) return null;
      const next = { ...r, ...patch, state: to };
      byId.set(id, next);
      return next;
    },
    async listIntents(accountId, filter = {}) {
      return [...byId.values()].filter(
        (r) =>
          r.account_id === accountId &&
          (!filter.states || filter.states.includes(r.state)) &&
          (filter.since === undefined || r.created_at >= filter.since),
      );
    },
    all: () => [...byId.values()],
  };
}
