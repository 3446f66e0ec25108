// GET /v1/events: the SSE stream of what the presence does unasked. Replays after
// Last-Event-ID (header or ?last_event_id=), then live; each type only for keys holding its
// scope, a message's text redacted where it drew on scopes the key lacks (both in core:
// thread/visible-events.ts); closes when the key is revoked or its rotation grace ends. Each
// open stream takes a slot under the stream caps (per key, per account, server-wide) until it
// closes.
import { type FeedItem, isPresenceError, type Subscription, subscribeVisibleEvents } from '@presence/core';
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operations } from '../http/operation';
import { resumeAfter } from '../http/sse';
import { type SseFrame, streamSse } from '../http/sse-stream';
import { callerOf, type RouteDeps } from '../http/types';

/** Core's items as frames: what the key may see of each event is core's to say (thread/visible-events.ts). */
const frameOf = (item: FeedItem): SseFrame =>
  item.kind === 'gap'
    ? { event: 'gap', data: { oldest_id: item.oldest_id } }
    : item.kind === 'cursor'
      ? { cursor: item.id }
      : { id: item.event.id, event: item.event.type, data: item.event.data };

const op = operations({ tag: 'events' })({
  streamEvents: {
    scope: { anyOf: ['talk', 'memory:read', 'wallet:read', 'admin'] },
    summary: 'Server-Sent Events: message, tx, memory, needs_confirm, confirm, webhook_disabled (and gap)',
    description:
      'What the presence does unasked, as Server-Sent Events: message, tx, memory, needs_confirm, confirm, webhook_disabled (each type only for keys holding its scope; webhook_disabled for admin keys). Send Last-Event-ID (or ?last_event_id=) to replay everything after it in order, then live; a `gap` frame says when older events are no longer kept. A `: heartbeat` comment comes every 15 s; the stream closes when the key is revoked.',
    querystring: schemas.EventsQuery,
    answer: 'An SSE stream: replay after Last-Event-ID, then live events; a `: heartbeat` comment every 15 s',
    stream: { frames: schemas.EventsStreamFrame, when: 'only', resume: true },
    problems: ['unavailable'],
  },
});

export const eventsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core, streams, streamCaps, heartbeatMs }) => {
  app.get('/v1/events', op.streamEvents, async (req, reply) => {
    const p = callerOf(req);
    const afterId = resumeAfter(req, req.query.last_event_id);
    const release = streamCaps.acquire(p, reply);
    let items: Subscription;
    try {
      items = subscribeVisibleEvents(core.events, p, afterId);
    } catch (e) {
      release();
      throw e;
    }
    const sse = streamSse(req, reply, { items, frameOf, heartbeatMs, name: 'events stream' });
    // The registry ends the stream on revocation, and when the secret it was opened with
    // stops working (a grace window known now, or one a later rotation starts).
    const unregister = streams.add(p, () => sse.end());
    sse.onClose(() => {
      unregister();
      release();
    });
    // A rotation or revocation between authentication and registering was heard by no one:
    // look again now that the registry would hear the next one.
    core.keys.secretValidity(p).then(
      (v) => {
        if (v === null) sse.end();
        else if (v.validUntil !== null) streams.retire({ keyId: p.keyId, secretHash: p.secretHash, validUntil: v.validUntil });
      },
      (err: unknown) => {
        // Ended either way (the client resumes with Last-Event-ID); only a fault of ours is an error.
        if (isPresenceError(err)) req.log.warn({ err }, 'events stream: key check failed');
        else req.log.error({ err }, 'events stream: key check failed');
        sse.end();
      },
    );
  });
};
