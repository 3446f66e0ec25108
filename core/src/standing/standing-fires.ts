// Completing one fire of a standing intent (standing-service.ts records it pending): what the
// presence says about it — the why alone, the daily balance, or the outcome of the action it
// starts — composed once and kept on the fire, said once, and only then the fire marked done.
// An acting fire re-checks its creator's authority before it starts its action, and its
// intent is keyed by the fire, so completing it again never acts twice.

import type { Clock } from '../clock/clock';
import { PresenceError } from '../errors/presence-error';
import type { WalletDomain } from '../intents/wallet-domain';
import { accountCaller } from '../keys/caller';
import { actionOutcome, holdings } from '../replies/replies';
import type { StandingFire, StandingRecord } from '../store/documents';
import type { StorePort } from '../store/store-port';
import type { Thread } from '../thread/thread';

/**
 * How long an acting fire keeps trying to start its action after a server-side failure
 * (chain down, store error) before it gives up and says so: acting long after the crossing,
 * at a price the owner never saw, is worse than not acting.
 */
export const ACT_RETRY_WINDOW_MS = 10 * 60_000;

/** The intent a fire submits is keyed by the fire, so completing it again never acts twice. */
export const fireIntentKey = (standingId: string, n: number) => `standing:${standingId}:fire:${n}`;

/** A failure worth another try on the next beat (the fire stays pending). */
class RetryLater extends Error {}

/** Answers how to complete fire `n` of a standing intent; each is a no-op once the fire is done. */
export function createFirePerformer({
  store,
  clock,
  thread,
  wallet,
}: {
  store: StorePort;
  clock: Clock;
  thread: Thread;
  wallet: WalletDomain | null;
}) {
  /** Why an acting intent may no longer act, or null when its creator still may. */
  async function authorityProblem(r: StandingRecord): Promise<string | null> {
    if (!r.may_act || !r.created_by) return 'it was not created with the authority to act; create it again from a message with allow_act';
    const k = await store.getKey(r.created_by);
    if (!k || k.account_id !== r.account_id || k.state === 'revoked') return 'the key that created it has been revoked';
    if (k.kind !== 'live' || !k.scopes.includes('wallet:act')) return 'the key that created it no longer holds wallet:act';
    return null;
  }

  /** Performs a fire's action (if any) and answers what the presence says about it. */
  async function compose(r: StandingRecord, f: StandingFire): Promise<string> {
    const w = wallet;
    if (r.action.kind === 'notify') return f.why;
    if (r.action.kind === 'balance') {
      if (!w) return 'It is time for your balance, but no chain is configured.';
      const v = await w.view(accountCaller(r.account_id)).catch((e: unknown) => {
        throw new RetryLater(e instanceof Error ? e.message : String(e));
      });
      return `Your daily balance: ${holdings(v)}.`;
    }
    const intent = r.action.intent;
    if (!w) return `${f.why} I did not ${intent}: no chain is configured.`;
    const key = fireIntentKey(r.id, f.n);
    // An intent this fire already submitted is reported whatever happened since (a cancel, a revoke).
    const started = (await store.findIntentByIdempotencyKey(r.account_id, key)) !== null;
    if (!started) {
      if (r.state !== 'active') return `${f.why} I did not ${intent}: the standing intent was cancelled first.`;
      const problem = await authorityProblem(r);
      if (problem) return `${f.why} I did not ${intent}: ${problem}.`;
    }
    try {
      const result = await w.pipeline.submit({
        caller: accountCaller(r.account_id),
        text: intent,
        source: 'standing',
        idempotencyKey: key,
        context: { standing_id: r.id, fire: f.n },
      });
      return `${f.why} ${actionOutcome(result)}`;
    } catch (e) {
      const final = e instanceof PresenceError && e.status < 500;
      // One already under way (e.g. signed, its receipt not yet seen) is followed until it ends.
      const underWay = !final && (started || (await store.findIntentByIdempotencyKey(r.account_id, key)) !== null);
      if (!final && (underWay || clock.now() - f.at < ACT_RETRY_WINDOW_MS)) {
        throw new RetryLater(e instanceof Error ? e.message : String(e));
      }
      const detail = e instanceof PresenceError ? e.detail : 'it failed';
      return `${f.why} I tried to ${intent}, but could not: ${detail}`;
    }
  }

  /** Completes fire `n` of a standing intent; a no-op once it is done. */
  async function perform(accountId: string, id: string, n: number): Promise<void> {
    const r = (await store.listStanding(accountId)).find((x) => x.id === id);
    const f = r?.pending.find((p) => p.n === n);
    if (!r || !f) return;
    let say = f.say;
    if (!say) {
      const text = await compose(r, f);
      say = { text, ...(await thread.marks(accountId)) };
      const fixed = say;
      await store.updateStanding(accountId, id, (x) => ({ ...x, pending: x.pending.map((p) => (p.n === n ? { ...p, say: fixed } : p)) }));
    }
    // Every standing intent watches a price or the wallet, or acts: its words are wallet:read's to see.
    await thread.sayOnce(accountId, say.text, `standing:${id}`, say, ['wallet:read']);
    await store.updateStanding(accountId, id, (x) => ({ ...x, pending: x.pending.filter((p) => p.n !== n) }));
  }

  return perform;
}
