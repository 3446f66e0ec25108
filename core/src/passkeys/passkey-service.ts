// Passkeys of an account and the two ceremonies the server's pages run (DESIGN.md "Passkey
// approvals"): enrolling one through a one-time link, and approving a hold with one. Options
// and verification come from @simplewebauthn/server, with the origin and RP ID of
// PRESENCE_PUBLIC_URL and user verification required. Each ceremony's challenge lives on its
// link's ticket in the passkey store and is taken once by its verification, so any server
// serves either step and a replayed answer finds no challenge. An approval then goes through
// the same path as POST /v1/confirm (policy re-checked, executed once).
import { randomBytes } from 'node:crypto';
import type { ConfirmResult, PasskeyAssertion, PasskeyRegistration, PasskeyView } from '@presence/protocol';
import {
  type AuthenticatorTransport,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { formatUsd } from '../chain/amounts';
import type { Clock } from '../clock/clock';
import { iso } from '../clock/clock';
import { notFound, PresenceError } from '../errors/presence-error';
import { accountCaller, type Caller } from '../keys/caller';
import { randomBase62 } from '../keys/key-secret';
import type { PolicyService } from '../policy/policy-service';
import type { StoreFor } from '../store/overlay-store';
import { tokenHash } from './passkey-holds';
import type { PasskeyCredentialRecord, PasskeyTicketRecord } from './passkey-records';
import type { PasskeyStorePort } from './passkey-store-port';

export const ENROLL_TTL_MS = 10 * 60_000;
/** Passkeys per account, and enroll links open at once per account. */
export const MAX_PASSKEYS = 10;
export const MAX_OPEN_ENROLL_LINKS = 10;

/** What a link's page shows. `open`: the ceremony may run; the rest are final. */
export type LinkState = 'open' | 'done' | 'denied' | 'expired' | 'used' | 'failed';
export type ApprovalView = {
  state: LinkState;
  summary: string;
  amount: string;
  value_usd: string;
  expires_at: string;
  simulated: boolean;
};

/** A refusal of a ceremony's answer; `reason` is for the log (never the token), `detail` for the page. */
const refused = (reason: string, detail = 'the passkey was refused') => new PresenceError('passkey_refused', detail, { extra: { reason } });
const gone = () => notFound('this link is not valid (used, expired or mistyped)');

export type PasskeyService = ReturnType<typeof createPasskeyService>;

/** The approval path of POST /v1/confirm (intents/confirmations.ts), named here so passkeys do not import intents (which import passkeys). */
export type ConfirmPath = {
  answer(caller: Caller, confirmId: string, approve: boolean, opts?: { passkeyVerified?: boolean }): Promise<ConfirmResult>;
};

export function createPasskeyService({
  passkeys,
  storeFor,
  clock,
  publicUrl,
  confirmations,
  policies,
  onRefused,
}: {
  policies: Pick<PolicyService, 'get'>;
  passkeys: PasskeyStorePort;
  storeFor: StoreFor;
  clock: Clock;
  publicUrl: () => string;
  /** The approval path of POST /v1/confirm; null without a chain (then there are no holds). */
  confirmations: ConfirmPath | null;
  /** Told of every refused ceremony answer (the server logs it): the account and why, never the token. */
  onRefused?: (r: { account_id: string | null; step: 'enroll' | 'approve'; reason: string }) => void;
}) {
  const rp = () => {
    const u = new URL(publicUrl());
    return { origin: u.origin, rpID: u.hostname };
  };
  /** What every answer is verified against: the ticket's challenge, this server's origin and RP ID, a verified user. */
  const expected = (challenge: string) => {
    const { origin, rpID } = rp();
    return { expectedChallenge: challenge, expectedOrigin: origin, expectedRPID: rpID, requireUserVerification: true };
  };
  const view = (c: PasskeyCredentialRecord): PasskeyView => ({
    id: c.id,
    name: c.name,
    created_at: iso(c.created_at),
    last_used_at: c.last_used_at === null ? null : iso(c.last_used_at),
  });
  const ticketOf = async (token: string, kind: PasskeyTicketRecord['kind']) => {
    const t = await passkeys.getTicket(tokenHash(token));
    return t && t.kind === kind ? t : null;
  };
  /** Runs a ceremony's verification, reporting a refusal before it reaches the page. */
  async function guarded<T>(step: 'enroll' | 'approve', accountId: string | null, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      if (e instanceof PresenceError && e.type === 'passkey_refused')
        onRefused?.({ account_id: accountId, step, reason: String(e.extra.reason ?? e.detail) });
      throw e;
    }
  }
  /** Takes the ticket's challenge once; a second answer (a replay, or a page posted twice) finds none. */
  async function takeChallenge(token: string, kind: PasskeyTicketRecord['kind']) {
    const t = await passkeys.takeChallenge(tokenHash(token), clock.now());
    if (!t || t.kind !== kind || t.challenge === null)
      throw refused(
        'no challenge to answer (replayed, or the page was not loaded)',
        'this page was answered already; reload it to try again',
      );
    return t as PasskeyTicketRecord & { challenge: string };
  }

  async function holdOf(t: PasskeyTicketRecord) {
    return storeFor(t.key_kind).findIntentByConfirmId(t.account_id, t.confirm_id as string);
  }

  return {
    /** POST /v1/passkeys/enroll: a one-time link (10 minutes) to the page that adds a passkey. */
    async enrollLink(caller: Caller, name = 'passkey'): Promise<{ url: string; expires_at: string }> {
      const now = clock.now();
      if ((await passkeys.countOpenEnrollTickets(caller.accountId, now)) >= MAX_OPEN_ENROLL_LINKS)
        throw new PresenceError(
          'conflict',
          `at most ${MAX_OPEN_ENROLL_LINKS} enroll links may be open at once; use one or wait for them to expire`,
        );
      const token = randomBytes(32).toString('base64url');
      const expires = now + ENROLL_TTL_MS;
      await passkeys.putTicket({
        hash: tokenHash(token),
        kind: 'enroll',
        account_id: caller.accountId,
        key_kind: 'live',
        confirm_id: null,
        name,
        expires_at: expires,
        challenge: null,
        used_at: null,
        created_at: now,
      });
      return { url: `${publicUrl().replace(/\/+$/, '')}/enroll/${token}`, expires_at: iso(expires) };
    },
    async list(caller: Caller): Promise<PasskeyView[]> {
      return (await passkeys.listCredentials(caller.accountId)).map(view);
    },
    async count(accountId: string): Promise<number> {
      return (await passkeys.listCredentials(accountId)).length;
    },
    /** DELETE /v1/passkeys/{id}: not the last one while the account's policy sets passkey_over. */
    async remove(caller: Caller, id: string): Promise<void> {
      const all = await passkeys.listCredentials(caller.accountId);
      if (!all.some((c) => c.id === id)) throw notFound(`no passkey ${id}`);
      if (all.length === 1 && (await policies.get(accountCaller(caller.accountId))).passkey_over !== undefined)
        throw new PresenceError('conflict', 'this is the last passkey and the policy sets passkey_over: remove passkey_over first', {
          extra: { rule: 'passkey_over' },
        });
      if (!(await passkeys.deleteCredential(caller.accountId, id, clock.now()))) throw notFound(`no passkey ${id}`);
    },

    /** The enroll page's state. */
    async enrollState(token: string): Promise<LinkState | null> {
      const t = await ticketOf(token, 'enroll');
      if (!t) return null;
      return t.used_at !== null ? 'used' : clock.now() >= t.expires_at ? 'expired' : 'open';
    },
    async registrationOptions(token: string): Promise<Record<string, unknown>> {
      const t = await ticketOf(token, 'enroll');
      if (!t || t.used_at !== null || clock.now() >= t.expires_at) throw gone();
      const existing = await passkeys.listCredentials(t.account_id);
      if (existing.length >= MAX_PASSKEYS)
        throw new PresenceError('conflict', `this account has ${MAX_PASSKEYS} passkeys, the most it may have`);
      const { rpID } = rp();
      const options = await generateRegistrationOptions({
        rpName: 'Presence',
        rpID,
        userName: `presence ${t.account_id}`,
        userID: new TextEncoder().encode(t.account_id),
        userDisplayName: 'Presence account',
        attestationType: 'none',
        excludeCredentials: existing.map((c) => ({ id: c.credential_id, transports: c.transports as AuthenticatorTransport[] })),
        authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
      });
      if (!(await passkeys.setChallenge(t.hash, options.challenge, clock.now()))) throw gone();
      return { ...options };
    },
    async register(token: string, response: PasskeyRegistration): Promise<PasskeyView> {
      const t = await ticketOf(token, 'enroll');
      if (!t) throw gone();
      return guarded('enroll', t.account_id, async () => {
        const ticket = await takeChallenge(token, 'enroll');
        const result = await verifyRegistrationResponse({ response, ...expected(ticket.challenge) }).catch((e: unknown) => {
          throw refused(e instanceof Error ? e.message : String(e), 'the passkey could not be verified');
        });
        if (!result.verified) throw refused('registration not verified', 'the passkey could not be verified');
        if ((await passkeys.listCredentials(t.account_id)).length >= MAX_PASSKEYS)
          throw new PresenceError('conflict', `this account has ${MAX_PASSKEYS} passkeys, the most it may have`);
        // The link is spent before the credential is kept: two answers at once add one passkey.
        if (!(await passkeys.useTicket(t.hash, clock.now()))) throw gone();
        const { credential } = result.registrationInfo;
        const record: PasskeyCredentialRecord = {
          credential_id: credential.id,
          id: `pk_${randomBase62(16)}`,
          account_id: t.account_id,
          name: t.name ?? 'passkey',
          public_key: Buffer.from(credential.publicKey).toString('base64url'),
          counter: credential.counter,
          transports: credential.transports ?? [],
          created_at: clock.now(),
          last_used_at: null,
          deleted_at: null,
        };
        if (!(await passkeys.insertCredential(record)))
          throw refused('credential already registered', 'this passkey is already registered');
        return view(record);
      });
    },

    /** The approve page's view of the hold its link is bound to; null for a link that is no approve link. */
    async approval(token: string): Promise<ApprovalView | null> {
      const t = await ticketOf(token, 'approve');
      if (!t) return null;
      const r = await holdOf(t);
      if (!r) return null;
      const now = clock.now();
      const state: LinkState =
        r.state === 'done'
          ? 'done'
          : r.state === 'denied'
            ? 'denied'
            : r.state === 'failed'
              ? 'failed'
              : r.state === 'expired' || (r.state === 'held' && now >= (r.expires_at as number))
                ? 'expired'
                : r.state === 'held'
                  ? 'open'
                  : 'used';
      return {
        state,
        summary: r.summary,
        amount: r.amount,
        value_usd: formatUsd(BigInt(r.value_usd)),
        expires_at: iso(r.expires_at as number),
        simulated: t.key_kind === 'test',
      };
    },
    async authenticationOptions(token: string): Promise<Record<string, unknown>> {
      const t = await ticketOf(token, 'approve');
      if (!t || t.used_at !== null || clock.now() >= t.expires_at) throw gone();
      const r = await holdOf(t);
      if (r?.state !== 'held') throw gone();
      const credentials = await passkeys.listCredentials(t.account_id);
      const options = await generateAuthenticationOptions({
        rpID: rp().rpID,
        allowCredentials: credentials.map((c) => ({ id: c.credential_id, transports: c.transports as AuthenticatorTransport[] })),
        userVerification: 'required',
      });
      if (!(await passkeys.setChallenge(t.hash, options.challenge, clock.now()))) throw gone();
      return { ...options };
    },
    async approve(token: string, response: PasskeyAssertion): Promise<ConfirmResult> {
      const t = await ticketOf(token, 'approve');
      if (!t || !confirmations) throw gone();
      await guarded('approve', t.account_id, async () => {
        const ticket = await takeChallenge(token, 'approve');
        const credential = await passkeys.findCredential(response.id);
        // Only this account's passkeys approve its holds.
        if (!credential || credential.account_id !== ticket.account_id)
          throw refused(
            credential ? 'a credential of another account' : 'an unknown credential',
            'this passkey is not one of this account',
          );
        const result = await verifyAuthenticationResponse({
          response,
          ...expected(ticket.challenge),
          credential: {
            id: credential.credential_id,
            publicKey: new Uint8Array(Buffer.from(credential.public_key, 'base64url')),
            counter: credential.counter,
            transports: credential.transports as AuthenticatorTransport[],
          },
        }).catch((e: unknown) => {
          throw refused(e instanceof Error ? e.message : String(e), 'the passkey could not be verified');
        });
        if (!result.verified) throw refused('assertion not verified', 'the passkey could not be verified');
        if (!(await passkeys.recordUse(credential.credential_id, result.authenticationInfo.newCounter, clock.now())))
          throw refused('signature counter did not grow (a cloned authenticator?)', 'the passkey could not be verified');
      });
      const answered = await confirmations.answer({ accountId: t.account_id, kind: t.key_kind }, t.confirm_id as string, true, {
        passkeyVerified: true,
      });
      await passkeys.useTicket(t.hash, clock.now());
      return answered;
    },
    /** Deny stays one tap: the link alone denies, as the Deny button of a chat does. */
    async deny(token: string): Promise<ConfirmResult> {
      const t = await ticketOf(token, 'approve');
      if (!t || !confirmations) throw gone();
      const answered = await confirmations.answer({ accountId: t.account_id, kind: t.key_kind }, t.confirm_id as string, false);
      await passkeys.useTicket(t.hash, clock.now());
      return answered;
    },
    /** Upkeep: drops tickets expired more than a day ago (a page still open on one then reads "not valid"). */
    prune: () => passkeys.pruneTickets(clock.now() - 86_400_000),
  };
}
