// Linking a chat or browser surface without pasting a secret into it: an admin makes a
// short one-time code; the surface redeems it for a key of its own, named
// "<surface>:<name>". Codes are stored only as keyed hashes (HMAC-SHA-256 under a subkey of
// the master key: a copy of the file alone must not let anyone test guesses), expire, work
// once, and are compared in constant time. Redeem attempts pass the redeem guard (per address:
// see redeem-guard.ts) before a code is looked at.
// Redeeming also answers where the account's events stand, so the surface's first
// subscription can replay from there: a stream without Last-Event-ID starts live, and would
// miss what happens between redeeming and subscribing.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { Scope } from '@presence/protocol';
import type { Clock } from '../clock/clock';
import { iso } from '../clock/clock';
import { notFound, PresenceError } from '../errors/presence-error';
import type { EventsLog } from '../events/events-log';
import { accountCaller, type Caller } from '../keys/caller';
import { assertMayChangeCredentials, type KeyService } from '../keys/key-service';
import { type AccountLimits, accountLimits, assertRoom } from '../limits/account-limits';
import type { RateLimiterPort } from '../ratelimit/sliding-window';
import type { StorePort } from '../store/store-port';
import { createRedeemGuard, defaultRedeemLimits, type RedeemAttempt, type RedeemLimits } from './redeem-guard';
import { createSharedRedeemGuard } from './shared-redeem-guard';

/** No 0/O or 1/I: codes are read and typed by people. 32 symbols × 20 = 100 bits (redeem-guard.ts says why). */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export const LINK_CODE = /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{20}$/;
const CODE_LENGTH = 20;
export const DEFAULT_LINK_SCOPES: Scope[] = ['talk', 'memory:read', 'memory:write', 'wallet:read', 'wallet:act'];

/** HKDF `info` of the link-code MAC key: a label no other use of the master key shares. */
export const LINK_CODE_KEY_INFO = 'presence link codes v1';

/** What the store keeps of a code. */
export const linkCodeHash = (codeKey: Buffer, code: string) => createHmac('sha256', codeKey).update(code).digest();

export type LinkService = ReturnType<typeof createLinkService>;

export type RedeemWho = { surface: string; user_id: string; name: string };
/** Links a key a surface redeemed to that surface (surfaces/surface-service.ts). */
export type SurfaceLinker = (made: { accountId: string; keyId: string; lastEventId: number }) => Promise<void>;

export function createLinkService({
  store,
  clock,
  keys,
  events,
  codeKey,
  redeemLimits,
  rateLimiterFor,
  limits = accountLimits,
}: {
  store: StorePort;
  clock: Clock;
  keys: KeyService;
  events: Pick<EventsLog, 'bounds'>;
  /** The MAC key codes are hashed under (`keystore.subkey(LINK_CODE_KEY_INFO)`); without it no code can be made or redeemed. */
  codeKey: Buffer | null;
  redeemLimits?: RedeemLimits;
  /** Given (several servers on one database), the guard counts on every server. */
  rateLimiterFor?: ((scope: string, opts: { limit: number; windowMs: number }) => RateLimiterPort) | undefined;
  /** `links` caps the account's outstanding codes (default `accountLimits`). */
  limits?: Pick<AccountLimits, 'links'>;
}) {
  const hashCode = (code: string) => {
    if (!codeKey) throw new Error('link codes need the master key (this core was made without a keystore)');
    return linkCodeHash(codeKey, code);
  };
  const guard: { attempt(address: string): RedeemAttempt | Promise<RedeemAttempt> } = rateLimiterFor
    ? createSharedRedeemGuard({ limits: redeemLimits ?? defaultRedeemLimits, rateLimiterFor })
    : createRedeemGuard({ clock, limits: redeemLimits });

  async function redeemCode(code: string, who: RedeemWho, via?: SurfaceLinker) {
    // Typed by people: spaces and hyphens between groups are not part of it.
    const normal = code.replace(/[\s-]/g, '').toUpperCase();
    const gone = () => notFound('this link code is unknown, used or expired; ask for a new one');
    if (!LINK_CODE.test(normal)) throw gone();
    const digest = hashCode(normal);
    // The lookup is by hash; the final comparison is constant-time all the same.
    const link = await store.redeemLink(digest.toString('hex'), clock.now());
    if (!link || !timingSafeEqual(Buffer.from(link.hash, 'hex'), digest)) throw gone();
    const name = `${who.surface}:${who.name}`.slice(0, 100);
    // Read once the code is spent: anything newer is after the redeem and will be replayed.
    const { latest } = await events.bounds(accountCaller(link.account_id));
    // The code is spent by now: a refusal at the key cap says a new one is needed.
    const key = await keys.create(
      link.account_id,
      { kind: 'live', name, scopes: link.scopes },
      undefined,
      ' Then ask for a new link code.',
    );
    // Redeemed by a surface token: the key is linked through it and its secret is dropped here.
    if (via) await via({ accountId: link.account_id, keyId: key.id, lastEventId: latest });
    return {
      account: link.account_id,
      key: via ? null : key.secret,
      key_id: key.id,
      name,
      scopes: key.scopes,
      surface_user: who.user_id,
      last_event_id: latest,
    };
  }

  return {
    /** Refused (409, limit links_per_account) while the account has its cap of codes outstanding. */
    async create(accountId: string, scopes: readonly Scope[] = DEFAULT_LINK_SCOPES, ttlS = 600) {
      const now = clock.now();
      // Counted, then stored: codes made at once at the cap may pass it by the few in flight.
      assertRoom('links', await store.countOutstandingLinks(accountId, now), limits.links);
      let code = '';
      for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
      const expires = now + ttlS * 1000;
      await store.putLink(
        {
          hash: hashCode(code).toString('hex'),
          account_id: accountId,
          scopes: [...scopes],
          created_at: now,
          expires_at: expires,
          redeemed_at: null,
        },
        now,
      );
      return { code, expires_at: iso(expires), scopes: [...scopes] };
    },

    /** Counts a redeem attempt from a client address; its `refusal`, if any, is the answer. */
    attemptRedeem(address: string): RedeemAttempt | Promise<RedeemAttempt> {
      return guard.attempt(address);
    },

    /**
     * Redeems under an attempt from `attemptRedeem` (or a surface's own guard): a wrong code
     * counts as a failed one. With `via` (a surface redeeming) the answer carries no secret.
     */
    async redeem(code: string, who: RedeemWho, attempt: RedeemAttempt, via?: SurfaceLinker) {
      if (attempt.refusal) throw attempt.refusal;
      try {
        const result = await redeemCode(code, who, via);
        attempt.settle('redeemed');
        return result;
      } catch (e) {
        attempt.settle(e instanceof PresenceError && e.type === 'not_found' ? 'failed' : 'neither');
        throw e;
      }
    },

    assertCanLink(caller: Caller) {
      assertMayChangeCredentials(caller, 'make link codes', 'a link issues a live key');
    },
  };
}
