// The test keys' overlay (overlay-store.ts) of the families that are the overlay's own only:
// a test request must never replay a live answer, a test key's intents are simulated actions
// that must neither count against nor act on real ones, and the port cannot read a link code
// without redeeming it.
import { PresenceError } from '../errors/presence-error';
import type { IntentRecord } from './documents';
import type { IdempotencyPort } from './idempotency-port';
import { createIntentIndex } from './intent-index';
import type { IntentsPort } from './intents-port';
import type { LinksPort } from './links-port';
import { copy, remember } from './overlay-changes';
import type { OverlayContext } from './overlay-context';

export function overlayOwn(ctx: OverlayContext): IdempotencyPort & IntentsPort & LinksPort {
  const { active, own, peek, maxRecords } = ctx;
  return {
    async getIdempotencyRecord(accountId, key) {
      return peek(accountId)?.answers.get(key) ?? null;
    },
    async putIdempotencyRecord(accountId, record) {
      remember(own(accountId).answers, record.key, copy(record), maxRecords);
    },
    async pruneIdempotency(olderThan) {
      let dropped = 0;
      for (const o of active()) {
        for (const [key, r] of o.answers) {
          if (r.created_at >= olderThan) continue;
          o.answers.delete(key);
          dropped++;
        }
      }
      return dropped;
    },
    async createIntent(intent) {
      const o = own(intent.account_id);
      if (o.intents.byId.has(intent.id)) throw new PresenceError('conflict', `intent ${intent.id} exists`);
      o.intents.put(copy(intent));
      if (o.intents.byId.size > maxRecords) {
        // The index has no removal: rebuild it without the oldest record (a few hundred at most).
        const kept = createIntentIndex();
        for (const r of o.intents.list({ last: maxRecords })) kept.put(r);
        o.intents = kept;
      }
    },
    async getIntent(accountId, id) {
      return peek(accountId)?.intents.byId.get(id) ?? null;
    },
    async findIntentByConfirmId(accountId, confirmId) {
      return peek(accountId)?.intents.byConfirmId(confirmId) ?? null;
    },
    async findIntentByIdempotencyKey(accountId, key) {
      return peek(accountId)?.intents.byIdempotencyKey(key) ?? null;
    },
    async transitionIntent(accountId, id, from, to, patch = {}) {
      const current = peek(accountId)?.intents.byId.get(id);
      if (!current || !from.includes(current.state)) return null;
      const next = copy({ ...current, ...patch, state: to } as IntentRecord);
      own(accountId).intents.put(next);
      return next;
    },
    async listIntents(accountId, filter = {}) {
      return peek(accountId)?.intents.list(filter) ?? [];
    },
    async heldCount(accountId) {
      return peek(accountId)?.intents.heldCount() ?? 0;
    },
    async spentSince(accountId, since) {
      return peek(accountId)?.intents.spentSince(since) ?? 0n;
    },
    async intentsInStates(states) {
      return [...active()].flatMap((o) => o.intents.list({ states }));
    },
    async dueHolds(now) {
      // Only accounts whose overlay is active: bounded by what test keys did in the last day.
      return [...active()].flatMap((o) => o.intents.list({ states: ['held'] }).filter((r) => (r.expires_at ?? 0) <= now));
    },
    async putLink(link, now) {
      const o = own(link.account_id);
      for (const [hash, l] of o.links) if (l.expires_at <= now) o.links.delete(hash);
      remember(o.links, link.hash, copy(link), maxRecords);
    },
    async redeemLink(hash, now) {
      for (const o of active()) {
        const l = o.links.get(hash);
        if (!l || l.redeemed_at !== null || l.expires_at <= now) continue;
        const next = copy({ ...l, redeemed_at: now });
        o.links.set(hash, next);
        return next;
      }
      return null;
    },

    async countOutstandingLinks(accountId, now) {
      // Like redeemLink: only the overlay's own codes (link codes are made on the live store).
      return [...(peek(accountId)?.links.values() ?? [])].filter((l) => l.redeemed_at === null && l.expires_at > now).length;
    },
  };
}
