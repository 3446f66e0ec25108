// Which holds are approved with a passkey, and their approve links. A hold above the policy's
// `passkey_over` gets a ticket when it is made; its link's token is an HMAC of the account and
// the confirm id under a subkey of the master key, so any server (and a retry of the request
// that made the hold) computes the same link without the token ever being stored: the store
// keeps only the token's SHA-256, like every other link.
import { createHash, createHmac } from 'node:crypto';
import type { PolicyDocument } from '@presence/protocol';
import type { Clock } from '../clock/clock';
import { PresenceError } from '../errors/presence-error';
import type { Caller } from '../keys/caller';
import type { IntentRecord } from '../store/documents';
import type { PasskeyStorePort } from './passkey-store-port';

/** HKDF `info` of the approve-link MAC key: a label no other use of the master key shares. */
export const APPROVE_LINK_KEY_INFO = 'presence passkey approve links v1';

export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** What a hold answer and its needs_confirm event carry when it needs a passkey. */
export type PasskeyMark = { passkey?: true; approve_url?: string };

export type PasskeyHolds = ReturnType<typeof createPasskeyHolds>;

export function createPasskeyHolds({
  passkeys,
  clock,
  publicUrl,
  linkKey,
}: {
  passkeys: PasskeyStorePort;
  clock: Clock;
  /** The origin browsers reach this deployment at (PRESENCE_PUBLIC_URL). */
  publicUrl: () => string;
  linkKey: Buffer;
}) {
  const tokenOf = (accountId: string, confirmId: string) =>
    createHmac('sha256', linkKey).update(`${accountId}\0${confirmId}`).digest('base64url');
  const urlOf = (token: string) => `${publicUrl().replace(/\/+$/, '')}/approve/${token}`;
  const mark = (r: IntentRecord): Required<PasskeyMark> => ({
    passkey: true,
    approve_url: urlOf(tokenOf(r.account_id, r.confirm_id as string)),
  });

  return {
    /** Whether an action of this value needs a passkey under this policy (`usdOf` prices the threshold). */
    needed(policy: Pick<PolicyDocument, 'passkey_over'>, valueUsd: bigint, usdOf: (amount: string) => bigint): boolean {
      return policy.passkey_over !== undefined && valueUsd > usdOf(policy.passkey_over);
    },
    /** Makes the hold's approve ticket (again is harmless: the same token, first writer wins). */
    async issue(caller: Caller, r: IntentRecord): Promise<Required<PasskeyMark>> {
      const token = tokenOf(r.account_id, r.confirm_id as string);
      await passkeys.putTicket({
        hash: tokenHash(token),
        kind: 'approve',
        account_id: r.account_id,
        key_kind: caller.kind,
        confirm_id: r.confirm_id,
        name: null,
        expires_at: r.expires_at as number,
        challenge: null,
        used_at: null,
        created_at: clock.now(),
      });
      return mark(r);
    },
    /** The hold's passkey mark when it was made over the threshold; {} otherwise. */
    async of(r: IntentRecord): Promise<PasskeyMark> {
      if (!r.confirm_id) return {};
      const t = await passkeys.getTicket(tokenHash(tokenOf(r.account_id, r.confirm_id)));
      return t ? mark(r) : {};
    },
    /** The refusal of a plain approve of a hold that needs a passkey. */
    required(r: IntentRecord): PresenceError {
      const { approve_url } = mark(r);
      return new PresenceError(
        'passkey_required',
        `confirmation ${r.confirm_id} is over passkey_over: approve it with a passkey at approve_url (deny works here as always)`,
        { extra: { approve_url } },
      );
    },
  };
}
