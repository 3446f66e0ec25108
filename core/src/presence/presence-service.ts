// The presence itself: what GET /v1/presence/me shows and what PATCH may change, in the
// store of the caller's key kind (a test key's PATCH lands in the overlay: create-core).
import { notFound } from '../errors/presence-error';
import type { Principal } from '../keys/key-service';
import type { MemoryService } from '../memory/memory-service';
import { spendLabel } from '../policy/spend-label';
import { defaultPolicy } from '../schemas/policy';
import type { PresencePatch, PresenceView } from '../schemas/presence';
import type { StoreFor } from '../store/overlay-store';

export function createPresenceService({
  storeFor,
  memory,
  chainName,
}: {
  storeFor: StoreFor;
  memory: MemoryService;
  chainName: () => string;
}) {
  async function me(p: Principal): Promise<PresenceView> {
    const a = await storeFor(p.kind).getAccount(p.accountId);
    if (!a) throw notFound('this key’s account no longer exists');
    return {
      name: a.presence.name,
      route: { model: a.presence.model },
      memory: await memory.counts(p.accountId, p.kind),
      wallet: { chain: chainName(), spend: spendLabel(a.policy ?? defaultPolicy) },
      preferences: a.presence.preferences,
      mode: p.kind,
    };
  }
  return {
    me,
    async patch(p: Principal, patch: PresencePatch): Promise<PresenceView> {
      await storeFor(p.kind).updateAccount(p.accountId, (a) => ({
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
