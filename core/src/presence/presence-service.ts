// The presence itself: what GET /v1/presence/me shows and what PATCH may change.
import type { PresencePatch, PresenceView } from '@presence/protocol';
import { defaultPolicy } from '@presence/protocol';
import { notFound } from '../errors/presence-error';
import type { Principal } from '../keys/key-service';
import type { MemoryService } from '../memory/memory-service';
import { spendLabel } from '../policy/spend-label';
import type { StorePort } from '../store/store-port';

export function createPresenceService({ store, memory, chainName }: { store: StorePort; memory: MemoryService; chainName: () => string }) {
  async function me(p: Principal): Promise<PresenceView> {
    const a = await store.getAccount(p.accountId);
    if (!a) throw notFound('this key’s account no longer exists');
    return {
      name: a.presence.name,
      route: { model: a.presence.model },
      memory: await memory.counts(p.accountId),
      wallet: { chain: chainName(), spend: spendLabel(a.policy ?? defaultPolicy) },
      preferences: a.presence.preferences,
      mode: p.kind,
    };
  }
  return {
    me,
    async patch(p: Principal, patch: PresencePatch): Promise<PresenceView> {
      if (p.kind === 'test') {
        // Test keys see the would-be result; nothing is written.
        const current = await me(p);
        return {
          ...current,
          name: patch.name ?? current.name,
          route: { model: patch.route?.model ?? current.route.model },
          preferences: { ...current.preferences, ...patch.preferences },
        };
      }
      await store.updateAccount(p.accountId, (a) => ({
        ...a,
        presence: {
          name: patch.name ?? a.presence.name,
          model: patch.route?.model ?? a.presence.model,
          preferences: patch.preferences ? { ...a.presence.preferences, ...patch.preferences } : a.presence.preferences,
        },
      }));
      return me(p);
    },
  };
}
