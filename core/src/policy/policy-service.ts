// The spend policy document: read, replace whole (bumping version). An account that never
// set one has the default, which denies sends. Each key kind reads and writes its own store
// (a test key's is the overlay: its PUT is answered and gates its own simulated intents).
import { defaultPolicy, type PolicyDocument, type StoredPolicy } from '@presence/protocol';
import type { TokenList } from '../chain/token-list';
import type { Clock } from '../clock/clock';
import { iso } from '../clock/clock';
import { notFound, PresenceError } from '../errors/presence-error';
import type { Caller } from '../keys/caller';
import type { StoreFor } from '../store/overlay-store';
import { checkPolicyUnits } from './policy-units';

export type PolicyService = ReturnType<typeof createPolicyService>;

export function createPolicyService({
  storeFor,
  clock,
  tokenList,
  passkeyCount,
}: {
  storeFor: StoreFor;
  clock: Clock;
  tokenList?: TokenList | null;
  /** How many passkeys the account has (passkey_over needs one); absent: passkey_over cannot be set. */
  passkeyCount?: (accountId: string) => Promise<number>;
}) {
  return {
    async get(caller: Caller): Promise<StoredPolicy> {
      const a = await storeFor(caller.kind).getAccount(caller.accountId);
      if (!a) throw notFound('no such account');
      return a.policy ?? { ...defaultPolicy, version: 0, updated_at: a.created_at };
    },
    async put(caller: Caller, doc: PolicyDocument): Promise<StoredPolicy> {
      if (tokenList) checkPolicyUnits(doc, tokenList);
      // A threshold nobody could approve above would hold every such action until it expired.
      if (doc.passkey_over !== undefined && (!passkeyCount || (await passkeyCount(caller.accountId)) === 0))
        throw new PresenceError('conflict', 'passkey_over needs a registered passkey: add one first (POST /v1/passkeys/enroll)', {
          extra: { rule: 'passkey_over' },
        });
      const updated = await storeFor(caller.kind).updateAccount(caller.accountId, (a) => ({
        ...a,
        policy: { ...doc, version: (a.policy?.version ?? 0) + 1, updated_at: iso(clock.now()) },
      }));
      if (!updated) throw notFound('no such account');
      return updated.policy as StoredPolicy;
    },
  };
}
