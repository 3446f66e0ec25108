// The delivery worker. Each endpoint is a cursor over its account's committed events log (an
// outbox that is the log itself: nothing is written to deliver an event, so nothing is lost
// by a crash). Delivering takes the endpoint's lease in the store (a row lock on PostgreSQL:
// one server at a time, across all servers), then sends the events after the cursor one at a
// time, in id order, advancing the cursor after each 2xx; a failure sets the next try by the
// retry schedule and lets go. A holder that dies leaves a lease whose end is the endpoint's
// due time, so another server takes over then and sends at most the request that was in
// flight again, with the same webhook-id.
//
// What wakes it (cost follows work: an idle endpoint costs nothing per tick):
// - a committed event of an account with endpoints (`wake`: the events log's afterCommit on
//   this server, the cluster's NOTIFY from any server);
// - due times (`tick`: one indexed read of endpoints whose retry or lease end has come);
// - at start, endpoints whose account has events past their cursor (`recover`).
// A wake that finds the lease held is not lost: the holder reads the log again after letting go.
import { randomUUID } from 'node:crypto';
import { type EventType, eventScope, type Scope, WEBHOOK_RETRY_SCHEDULE_S, type WebhookPayload } from '@presence/protocol';
import { iso } from '../clock/clock';
import type { EventStore, EventsLog } from '../events/events-log';
import type { Caller } from '../keys/caller';
import type { StoredEvent } from '../store/documents';
import type { ByKind } from '../store/overlay-store';
import type { StorePort } from '../store/store-port';
import type { WebhookRecord } from '../store/webhook-records';
import type { WebhookStorePort } from '../store/webhook-store-port';
import { redactEventData } from '../thread/scope-redaction';
import { createWebhookLeases } from './webhook-lease';
import { ok, postEvent, type WebhookPostOptions } from './webhook-post';

const PAGE = 100;
const DUE_BATCH = 100;
/**
 * How often the beat reads the due index when no due time this server set has come: the
 * pickup of another server's retries and leases (a server that died). Every beat, an idle
 * deployment paid a read a second for nothing (postgres-server.test's commit count).
 */
export const DUE_SWEEP_MS = 5_000;
export const WEBHOOK_TIMEOUT_MS = 10_000;
export { MAX_BODY_BYTES } from './webhook-post';

/** The sending parts (clock, sender, resolver, secrets, metrics) are one request's (webhook-post.ts). */
export type WebhookDispatcherOptions = Omit<WebhookPostOptions, 'timeoutMs'> & {
  webhooks: WebhookStorePort;
  /** The live store: the creating key's record (its scopes, whether it is revoked). */
  store: Pick<StorePort, 'getKey'>;
  eventsFor: ByKind<Pick<EventStore, 'eventsAfter' | 'eventBounds'>>;
  events: Pick<EventsLog, 'emit'>;
  /** The account's endpoints, as a wake-up asks (a cache across servers may stand in front of the store). */
  endpointsOf?(accountId: string): Promise<WebhookRecord[]>;
  timeoutMs?: number;
  /** Names this server in the leases it takes (logs, tests); default a random one. */
  serverId?: string;
  onError?: (e: unknown) => void;
};

export type PingResult = { message_id: string; status: number | null; error: string | null; duration_ms: number; delivered: boolean };

/** The webhook-id of an event's delivery: stable across retries, servers and restarts. */
export const messageIdOf = (r: Pick<WebhookRecord, 'account_id' | 'mode'>, eventId: number) =>
  r.mode === 'live' ? `evt_${r.account_id}_${eventId}` : `evt_test_${r.account_id}_${eventId}`;

/** Whether an endpoint sends an event of this type, to a key holding `scopes`. */
export function sends(r: Pick<WebhookRecord, 'events'>, scopes: readonly Scope[], type: string): boolean {
  const scope = eventScope[type as EventType] as Scope | undefined;
  return scope !== undefined && scopes.includes(scope) && (r.events.length === 0 || r.events.includes(type));
}

/** Events past each endpoint's cursor as this server last saw them (for /metrics: the most behind). */
function createBacklogs() {
  const backlogs = new Map<string, number>();
  return {
    get: (id: string) => backlogs.get(id),
    note(id: string, n: number) {
      if (n > 0) backlogs.set(id, n);
      else backlogs.delete(id);
    },
    /** The `n` endpoints furthest behind. */
    top(n: number): { id: string; events: number }[] {
      return [...backlogs]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([id, events]) => ({ id, events }));
    },
  };
}

export function createWebhookDispatcher(o: WebhookDispatcherOptions) {
  const { webhooks, clock } = o;
  const timeoutMs = o.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const leaseMs = timeoutMs + 5_000;
  /** Due times this server set (retry times, lease ends): the beat reads the index when one has come. */
  let localDue: number[] = [];
  let sweptAt = Number.NEGATIVE_INFINITY;
  const onError = o.onError ?? (() => undefined);
  const endpointsOf = o.endpointsOf ?? ((accountId: string) => webhooks.listWebhooks(accountId));
  /** Endpoints this server is driving, and whether a wake came meanwhile. */
  const running = new Map<string, { again: boolean; done: Promise<void> }>();
  /** Wake-ups still finding their endpoints. */
  const waking = new Set<Promise<void>>();
  let closed = false;

  const { lease, settle } = createWebhookLeases({ webhooks, clock, leaseMs, serverId: o.serverId, noteDue: (at) => localDue.push(at) });
  const backlogs = createBacklogs();
  const post = (r: WebhookRecord, messageId: string, payload: WebhookPayload) =>
    postEvent({ ...o, clock, timeoutMs }, r, messageId, payload);

  async function disable(r: WebhookRecord, token: string | null, reason: 'failing' | 'key_revoked', eventId: number | null) {
    let applied = false;
    await webhooks.updateWebhook(r.id, (cur) => {
      if (cur.state !== 'enabled' || (token !== null && cur.lease?.token !== token)) return cur;
      applied = true;
      return { ...cur, state: 'disabled', disabled_reason: reason, lease: null, retry_at: null };
    });
    if (!applied) return;
    o.metrics?.webhookDisabled?.(reason);
    const caller: Caller = { accountId: r.account_id, kind: r.mode };
    await o.events.emit(caller, 'webhook_disabled', { webhook_id: r.id, url: r.url, reason, event_id: eventId });
  }

  type Step = { next: WebhookRecord | null; state: 'more' | 'caught_up' | 'stopped' };
  /** Handles the event after the cursor (or the events before the next one this endpoint sends). */
  async function step(r: WebhookRecord, token: string): Promise<Step> {
    const key = await o.store.getKey(r.key_id);
    if (!key || key.state === 'revoked') {
      await disable(r, token, 'key_revoked', null);
      return { next: null, state: 'stopped' };
    }
    const page: StoredEvent[] = await o.eventsFor(r.mode).eventsAfter(r.account_id, r.cursor, PAGE);
    const at = page.findIndex((e) => sends(r, key.scopes, e.type));
    if (at < 0) {
      if (page.length === 0) return { next: await settle(r.id, token, {}, false), state: 'caught_up' };
      // Nothing here for this endpoint: the cursor moves past the page.
      const next = await settle(r.id, token, { cursor: (page.at(-1) as StoredEvent).id }, true);
      return { next, state: next ? 'more' : 'stopped' };
    }
    const e = page[at] as StoredEvent;
    const messageId = messageIdOf(r, e.id);
    const payload: WebhookPayload = {
      id: e.id,
      type: e.type as EventType,
      created_at: iso(e.at),
      data: redactEventData(e.type, e.data, key.scopes),
    };
    const answer = await post(r, messageId, payload);
    const now = clock.now();
    const attempt = r.attempts + 1;
    const log = { webhook_id: r.id, message_id: messageId, event_id: e.id, type: e.type, attempt, at: now };
    const fields = { status: answer.status, duration_ms: answer.durationMs, error: answer.error };
    if (ok(answer)) {
      await webhooks.appendDelivery({ ...log, ...fields, outcome: 'delivered', next_at: null });
      backlogs.note(r.id, (backlogs.get(r.id) ?? 1) - 1);
      const next = await settle(r.id, token, { cursor: e.id, attempts: 0, retry_at: null }, true);
      return { next, state: next ? 'more' : 'stopped' };
    }
    const wait = WEBHOOK_RETRY_SCHEDULE_S[r.attempts];
    const nextAt = wait === undefined ? null : now + wait * 1000;
    await webhooks.appendDelivery({ ...log, ...fields, outcome: 'failed', next_at: nextAt });
    // The events this endpoint skipped before `e` are handled, whatever becomes of `e`.
    const handled = at > 0 ? { cursor: (page[at - 1] as StoredEvent).id } : {};
    if (nextAt === null) {
      await settle(r.id, token, handled, true);
      await disable(r, token, 'failing', e.id);
    } else {
      localDue.push(nextAt);
      await settle(r.id, token, { ...handled, attempts: attempt, retry_at: nextAt }, false);
    }
    return { next: null, state: 'stopped' };
  }

  /** Whether the endpoint may have something to send now, by reads alone (most wake-ups find it caught up). */
  async function worthLeasing(id: string): Promise<boolean> {
    const r = await webhooks.getWebhook(id);
    const now = clock.now();
    if (r?.state !== 'enabled' || (r.lease && r.lease.until > now) || (r.retry_at !== null && r.retry_at > now)) return false;
    const latest = (await o.eventsFor(r.mode).eventBounds(r.account_id)).latest;
    backlogs.note(id, latest - r.cursor);
    // A lease that ran out (its holder died) is taken over whatever the log holds.
    return r.lease !== null || latest > r.cursor;
  }

  /** One lease's worth of delivering; answers whether to look again (events came as it let go). */
  async function driveOnce(id: string): Promise<boolean> {
    if (!(await worthLeasing(id))) return false;
    const held = await lease(id);
    if (!held) return false;
    let r: WebhookRecord = held.r;
    for (;;) {
      const s = await step(r, held.token);
      if (s.state === 'more' && s.next) {
        r = s.next;
        continue;
      }
      if (s.state !== 'caught_up' || !s.next) return false;
      // A wake that came while the lease was held found it taken: look once more now it is free.
      return (await o.eventsFor(r.mode).eventBounds(r.account_id)).latest > s.next.cursor;
    }
  }

  /** Delivers what the endpoint has waiting, unless this server is at it already (then it looks again after). */
  function kick(id: string): void {
    if (closed) return;
    const busy = running.get(id);
    if (busy) {
      busy.again = true;
      return;
    }
    const entry = { again: false, done: Promise.resolve() };
    running.set(id, entry);
    entry.done = (async () => {
      try {
        do {
          entry.again = false;
          if (await driveOnce(id)) entry.again = true;
        } while (entry.again && !closed);
      } catch (e) {
        // The lease (if taken) runs out and the due index brings the endpoint back.
        onError(e);
      } finally {
        running.delete(id);
      }
    })();
  }

  return {
    kick,
    /** A committed event of this account (on any server): its endpoints of that key kind look at the log. */
    wake(caller: Caller): Promise<void> {
      if (closed) return Promise.resolve();
      const w = (async () => {
        try {
          for (const r of await endpointsOf(caller.accountId)) if (r.state === 'enabled' && r.mode === caller.kind) kick(r.id);
        } catch (e) {
          onError(e);
        }
      })();
      waking.add(w);
      void w.finally(() => waking.delete(w));
      return w;
    },
    /** Resolves once nothing is being delivered or woken here (tests; a stop). */
    async settled() {
      while (waking.size > 0 || running.size > 0) await Promise.all([...waking, ...[...running.values()].map((r) => r.done)]);
    },
    /**
     * The beat: endpoints whose retry or lease end has come (one indexed read), read when a due
     * time this server set has come, and every DUE_SWEEP_MS for the others'.
     */
    async tick() {
      const now = clock.now();
      const come = localDue.some((t) => t <= now);
      if (!come && now - sweptAt < DUE_SWEEP_MS) return;
      if (!come) sweptAt = now;
      localDue = localDue.filter((t) => t > now);
      for (const r of await webhooks.dueWebhooks(now, DUE_BATCH)) kick(r.id);
    },
    /** At start: endpoints whose account logged events past their cursor while no server delivered. */
    async recover() {
      for (const r of await webhooks.enabledWebhooks()) {
        if (r.lease === null && (await o.eventsFor(r.mode).eventBounds(r.account_id)).latest > r.cursor) kick(r.id);
      }
    },
    /** A test delivery (`ping`), under the lease like any other: null when a delivery is in flight. */
    async ping(id: string): Promise<PingResult | null> {
      const held = await lease(id, { ping: true });
      if (!held) return null;
      const messageId = `ping_${randomUUID().replaceAll('-', '')}`;
      try {
        const now = clock.now();
        const payload: WebhookPayload = { id: 0, type: 'ping', created_at: iso(now), data: { webhook_id: id } };
        const answer = await post(held.r, messageId, payload);
        const delivered = ok(answer);
        await webhooks.appendDelivery({
          webhook_id: id,
          message_id: messageId,
          event_id: null,
          type: 'ping',
          attempt: 1,
          outcome: delivered ? 'delivered' : 'failed',
          status: answer.status,
          duration_ms: answer.durationMs,
          error: answer.error,
          at: now,
          next_at: null,
        });
        return { message_id: messageId, status: answer.status, error: answer.error, duration_ms: answer.durationMs, delivered };
      } finally {
        await settle(id, held.token, {}, false);
        kick(id);
      }
    },
    disable,
    /** The `n` endpoints furthest behind, as this server last saw them (events past the cursor). */
    backlog: backlogs.top,
    /** Stops taking work and waits for what is in flight. */
    async close() {
      closed = true;
      while (waking.size > 0 || running.size > 0) await Promise.all([...waking, ...[...running.values()].map((r) => r.done)]);
    },
  };
}

export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
