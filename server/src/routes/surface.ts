// The surface token's own routes: who it is (GET /v1/surface) and its one multiplexed stream
// (GET /v1/surface/events): every event of every account it linked, each where the linked
// key's scopes show it (a message's text redacted per key as on GET /v1/events), resumable
// with one Last-Event-ID (a feed position, the same on every server). Partitions
// (`?partition=i&of=n`, by account) let several consumers split it; the bots run one elected
// consumer instead (bots/README.md). The stream takes one slot under the stream caps (as one
// key of one account) and ends when the surface token is revoked.
import { PresenceError, type SurfaceFrame, type SurfacePrincipal } from '@presence/core';
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operations } from '../http/operation';
import { served } from '../http/served';
import { resumeAfter, type SseWriter } from '../http/sse';
import { type SseFrame, streamSse } from '../http/sse-stream';
import type { RouteDeps } from '../http/types';

/** Core's frames as SSE: which keys see what, redacted how, is core's to say (surfaces/surface-feed.ts). */
const frameOf = (f: SurfaceFrame): SseFrame =>
  f.kind === 'cursor'
    ? { cursor: f.seq }
    : f.kind === 'link_revoked'
      ? {
          id: f.seq,
          event: 'link_revoked',
          data: { account: f.account, key_id: f.key_id, surface_user: f.surface_user, at: new Date(f.at).toISOString() },
        }
      : { id: f.seq, event: f.event.type, data: { account: f.account, key_ids: f.key_ids, event: f.event, redacted: f.redacted } };

const surfacesOf = (core: RouteDeps['core']) => served(core.surfaces, 'not_found', 'this server keeps no surface tokens');

const op = operations({ tag: 'surfaces' })({
  getSurface: {
    surface: true,
    summary: 'The surface token itself (surface token only)',
    description:
      'The surface token making the call: its id, name, last four characters and how many live links it holds. Surface token only.',
    answer: 'The surface token: id, name, and how many live links it holds',
    response: schemas.SurfaceStatus,
  },
  adoptKey: {
    surface: true,
    summary: 'Move a key linked before surface tokens over to this surface (surface token only)',
    description:
      "Moves a key linked before surface tokens existed over to this surface: given the key's secret and its surface user, the key is from then on linked through this surface (the surface may forget the secret). Surface token only.",
    body: schemas.AdoptRequest,
    answer: 'The key, now linked through this surface: act for it by id from now on',
    response: schemas.SurfaceRedeemResult,
    problems: ['conflict'],
  },
  streamSurfaceEvents: {
    surface: true,
    summary: "Server-Sent Events for a surface: all its linked users' events on one stream (surface token only)",
    description:
      "One SSE stream of every linked account's events for a surface, each frame naming the account and the linked keys that may see it, and link_revoked when a key stops acting for its user. `?partition=i&of=n` splits the accounts between several readers. Resume with Last-Event-ID (one feed position for all accounts). Surface token only.",
    querystring: schemas.SurfaceEventsQuery,
    answer:
      "An SSE stream of every linked account's events (data: { account, key_ids, event, redacted? }) and link_revoked notices; id: the feed position, one cursor for all accounts",
    stream: { frames: schemas.SurfaceStreamFrame, when: 'only', resume: true },
    problems: ['unavailable'],
  },
});

export const surfaceRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core, streamCaps, heartbeatMs }) => {
  const open = new Map<SseWriter, string>();
  const stopRevoked = core.surfaces?.onSurfaceRevoked((id) => {
    for (const [sse, surfaceId] of open) if (surfaceId === id) sse.end();
  });
  app.addHook('preClose', async () => {
    stopRevoked?.();
    for (const sse of [...open.keys()]) sse.end();
  });

  app.get('/v1/surface', op.getSurface, async (req) => {
    const s = req.surface as SurfacePrincipal;
    const found = (await surfacesOf(core).list()).find((x) => x.id === s.surfaceId);
    if (!found) throw new PresenceError('auth', 'unknown surface token');
    return found;
  });

  app.post('/v1/surface/adopt', op.adoptKey, async (req) =>
    surfacesOf(core).adopt(req.surface as SurfacePrincipal, req.body.key, req.body.surface_user),
  );

  app.get('/v1/surface/events', op.streamSurfaceEvents, async (req, reply) => {
    const surfaces = surfacesOf(core);
    const s = req.surface as SurfacePrincipal;
    const items = surfaces.subscribe(s.surfaceId, resumeAfter(req, req.query.last_event_id), req.query);
    let release: () => void;
    try {
      // One slot, as one key of one account: however many users the surface serves.
      release = streamCaps.acquire({ keyId: s.surfaceId, accountId: `surface:${s.surfaceId}` }, reply);
    } catch (e) {
      items.close();
      throw e;
    }
    // The token may be revoked on another server: look again at every heartbeat.
    const onHeartbeat = (sse: SseWriter) =>
      surfaces.isLive(s.surfaceId).then(
        (live) => {
          if (!live) sse.end();
        },
        () => undefined,
      );
    const sse = streamSse(req, reply, { items, frameOf, heartbeatMs, onHeartbeat, name: 'surface events stream' });
    open.set(sse, s.surfaceId);
    sse.onClose(() => {
      open.delete(sse);
      release();
    });
  });
};
