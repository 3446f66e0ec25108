// Webhook endpoints as an admin key manages them (DESIGN.md "Webhooks"): made, listed,
// changed, deleted; a secret rotated with the old one signing beside it for 24 h; a test ping;
// the deliveries log; a replay from an event id. An endpoint belongs to its account and
// carries the kind and the id of the key that made it: it sends what that key's own stream
// would show, and revoking the key disables it. Delivering is the dispatcher's.
import type { WebhookCreateRequest, WebhookDelivery, WebhookUpdateRequest, WebhookView } from '@presence/protocol';
import { type Clock, iso } from '../clock/clock';
import { PresenceError } from '../errors/presence-error';
import type { EventStore } from '../events/events-log';
import { randomBase62 } from '../keys/key-secret';
import type { Principal } from '../keys/key-service';
import type { Keystore } from '../keystore/keystore';
import { assertRoom } from '../limits/account-limits';
import type { ByKind } from '../store/overlay-store';
import type { StorePort } from '../store/store-port';
import type { DeliveryRecord, WebhookRecord, WebhookSecretRecord } from '../store/webhook-records';
import type { WebhookStorePort } from '../store/webhook-store-port';
import type { WebhookDispatcher } from './webhook-dispatcher';
import { newWebhookSecret } from './webhook-signature';
import { resolveWebhookTarget, type WebhookResolver } from './webhook-url';

/** How long a rotated-out secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

export const toWebhookView = (r: WebhookRecord): WebhookView => ({
  id: r.id,
  url: r.url,
  events: r.events as WebhookView['events'],
  description: r.description,
  state: r.state,
  disabled_reason: r.disabled_reason,
  mode: r.mode,
  key_id: r.key_id,
  cursor: r.cursor,
  created_at: iso(r.created_at),
});

const toDeliveryView = (d: DeliveryRecord): WebhookDelivery => ({
  message_id: d.message_id,
  event_id: d.event_id,
  type: d.type,
  attempt: d.attempt,
  outcome: d.outcome,
  status: d.status,
  duration_ms: d.duration_ms,
  error: d.error,
  at: iso(d.at),
  next_attempt_at: d.next_at === null ? null : iso(d.next_at),
});

/** Seals a secret under the master key (bound to the endpoint), or keeps it as is without one. */
export function webhookSecrets(keystore: Keystore | null) {
  const context = (id: string) => `webhook-secret:${id}`;
  return {
    seal: (id: string, secret: string): WebhookSecretRecord['secret'] => (keystore ? keystore.sealText(context(id), secret) : secret),
    open: (r: WebhookRecord, i: number): string => {
      const s = r.secrets[i]?.secret;
      if (s === undefined) throw new Error(`webhook ${r.id} has no secret ${i}`);
      return typeof s === 'string' ? s : (keystore as Keystore).openText(context(r.id), s);
    },
  };
}

export function createWebhookService(o: {
  webhooks: WebhookStorePort;
  store: Pick<StorePort, 'getKey'>;
  eventsFor: ByKind<Pick<EventStore, 'eventBounds'>>;
  dispatcher: WebhookDispatcher;
  clock: Clock;
  keystore: Keystore | null;
  resolver: WebhookResolver;
  allowPrivate: boolean;
  limit: number;
  /** An account's endpoints changed here (a cache of them drops it). */
  changed?: (accountId: string) => void;
}) {
  const { webhooks, clock, dispatcher } = o;
  const secrets = webhookSecrets(o.keystore);
  const check = (url: string) => resolveWebhookTarget(url, { allowPrivate: o.allowPrivate, resolver: o.resolver });
  const events = (list: readonly string[] | undefined) => [...new Set(list ?? [])].sort();

  async function own(p: Principal, id: string): Promise<WebhookRecord> {
    const r = await webhooks.getWebhook(id);
    if (!r || r.account_id !== p.accountId) throw new PresenceError('not_found', `no webhook ${id}`);
    return r;
  }
  async function change(p: Principal, id: string, update: (r: WebhookRecord) => WebhookRecord): Promise<WebhookRecord> {
    await own(p, id);
    const r = await webhooks.updateWebhook(id, update);
    if (!r) throw new PresenceError('not_found', `no webhook ${id}`);
    o.changed?.(p.accountId);
    return r;
  }
  const inFlight = () => new PresenceError('conflict', 'a delivery to this endpoint is in flight; try again in a moment');

  return {
    async create(p: Principal, body: WebhookCreateRequest): Promise<WebhookView & { secret: string }> {
      assertRoom('webhooks', (await webhooks.listWebhooks(p.accountId)).length, o.limit);
      await check(body.url);
      const id = `wh_${randomBase62(16)}`;
      const secret = newWebhookSecret();
      const now = clock.now();
      const record: WebhookRecord = {
        id,
        account_id: p.accountId,
        key_id: p.keyId,
        mode: p.kind,
        url: body.url,
        events: events(body.events),
        description: body.description ?? '',
        state: 'enabled',
        disabled_reason: null,
        secrets: [{ secret: secrets.seal(id, secret), expires_at: null }],
        created_at: now,
        // What happened before the endpoint existed is not sent (replay asks for it).
        cursor: (await o.eventsFor(p.kind).eventBounds(p.accountId)).latest,
        attempts: 0,
        retry_at: null,
        lease: null,
        due_at: null,
      };
      await webhooks.insertWebhook(record);
      o.changed?.(p.accountId);
      return { ...toWebhookView(record), secret };
    },
    async list(p: Principal): Promise<WebhookView[]> {
      return (await webhooks.listWebhooks(p.accountId)).map(toWebhookView);
    },
    async get(p: Principal, id: string): Promise<WebhookView> {
      return toWebhookView(await own(p, id));
    },
    async update(p: Principal, id: string, patch: WebhookUpdateRequest): Promise<WebhookView> {
      if (patch.url !== undefined) await check(patch.url);
      const r = await change(p, id, (r) => {
        const next: WebhookRecord = {
          ...r,
          url: patch.url ?? r.url,
          events: patch.events === undefined ? r.events : events(patch.events),
          description: patch.description ?? r.description,
        };
        if (patch.state === 'enabled' && r.state === 'disabled')
          return { ...next, state: 'enabled', disabled_reason: null, attempts: 0, retry_at: null };
        if (patch.state === 'disabled' && r.state === 'enabled')
          return { ...next, state: 'disabled', disabled_reason: 'by_request', retry_at: null };
        return next;
      });
      if (r.state === 'enabled') dispatcher.kick(r.id);
      return toWebhookView(r);
    },
    async remove(p: Principal, id: string): Promise<void> {
      await own(p, id);
      await webhooks.deleteWebhook(id);
      o.changed?.(p.accountId);
    },
    async rotate(p: Principal, id: string): Promise<{ secret: string; previous_expires_at: string }> {
      const secret = newWebhookSecret();
      const now = clock.now();
      const until = now + ROTATION_OVERLAP_MS;
      await change(p, id, (r) => ({
        ...r,
        secrets: [
          { secret: secrets.seal(id, secret), expires_at: null },
          // Every secret signing now keeps signing for the overlap, none longer; expired ones go.
          ...r.secrets
            .filter((s) => s.expires_at === null || s.expires_at > now)
            .map((s) => ({ ...s, expires_at: Math.min(s.expires_at ?? until, until) })),
        ],
      }));
      return { secret, previous_expires_at: iso(until) };
    },
    async ping(p: Principal, id: string) {
      await own(p, id);
      const result = await dispatcher.ping(id);
      if (!result) throw inFlight();
      return result;
    },
    async deliveries(p: Principal, id: string, limit: number): Promise<WebhookDelivery[]> {
      await own(p, id);
      return (await webhooks.listDeliveries(id, limit)).map(toDeliveryView);
    },
    /** Sends the events after `since` again, in order (the cursor moves back; a failing endpoint starts its schedule again). */
    async replay(p: Principal, id: string, since: number): Promise<WebhookView> {
      // A cursor past the newest event would silently skip the events still to come up to it.
      const { latest } = await o.eventsFor((await own(p, id)).mode).eventBounds(p.accountId);
      if (since > latest)
        throw new PresenceError(
          'invalid_request',
          `since_event_id ${since} is past the newest event (#${latest}): give an id at most ${latest}`,
        );
      let busy = false;
      const now = clock.now();
      const r = await change(p, id, (r) => {
        if (r.lease && r.lease.until > now) {
          busy = true;
          return r;
        }
        return { ...r, cursor: since, attempts: 0, retry_at: null };
      });
      if (busy) throw inFlight();
      if (r.state === 'enabled') dispatcher.kick(r.id);
      return toWebhookView(r);
    },
    /** A key was revoked: the endpoints it made stop (each says so on its account's stream). */
    async keyRevoked(keyId: string): Promise<void> {
      const key = await o.store.getKey(keyId);
      if (!key) return;
      for (const r of await webhooks.listWebhooks(key.account_id))
        if (r.key_id === keyId && r.state === 'enabled') await dispatcher.disable(r, null, 'key_revoked', null);
      o.changed?.(key.account_id);
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
