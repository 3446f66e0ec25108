// The spend policy document: read, replace whole (bumping version). An account that never
// set one has the default, which denies sends.
import { defaultPolicy, type PolicyDocument, type StoredPolicy } from '@presence/protocol';
import type { TokenList } from '../chain/token-list';
import type { Clock } from '../clock/clock';
import { iso } from '../clock/clock';
import { notFound } from '../errors/presence-error';
import type { StorePort } from '../store/store-port';
import { checkPolicyUnits } from './policy-units';

export type PolicyService = ReturnType<typeof createPolicyService>;

export function createPolicyService({ store, clock, tokenList }: { store: StorePort; clock: Clock; tokenList?: TokenList | null }) {
  async function get(accountId: string): Promise<StoredPolicy> {
    const a = await store.getAccount(accountId);
    if (!a) throw notFound('no such account');
    return a.policy ?? { ...defaultPolicy, version: 0, updated_at: a.created_at };
  }
  return {
    get,
    /** Test keys see the would-be stored document; nothing changes. */
    async put(accountId: string, mode: 'live' | 'test', doc: PolicyDocument): Promise<StoredPolicy> {
      if (tokenList) checkPolicyUnits(doc, tokenList);
      if (mode === 'test') {
        const current = await get(accountId);
        return { ...doc, version: current.version + 1, updated_at: iso(clock.now()) };
      }
      const updated = await store.updateAccount(accountId, (a) => ({
        ...a,
        policy: { ...doc, version: (a.policy?.version ?? 0) + 1, updated_at: iso(clock.now()) },
      }));
      return updated.policy as StoredPolicy;
    },
  };
}
