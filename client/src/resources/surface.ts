// The surface token's own routes (a bot's, an extension fleet's): who it is, redeeming a link
// code into a key id (no secret: the surface then acts for it with `client.as(keyId)`), and
// the one multiplexed stream of every linked account's events, resumable with one cursor.
import { LinkRevokedData, SurfaceEventData, SurfaceRedeemResult, SurfaceStatus } from '@presence/protocol';
import type { z } from 'zod';
import {
  type GapEvent,
  type PresenceEvent,
  readData,
  type SubscribeOptions,
  subscribeStream,
  typedData,
  type UnrecognizedEvent,
  unrecognized,
} from '../events';
import type { Http, RequestOptions } from '../http';
import type { RedeemLinkParameters } from './links';

export type SurfaceStatusReturnType = z.infer<typeof SurfaceStatus>;
export type SurfaceRedeemReturnType = z.infer<typeof SurfaceRedeemResult>;

/**
 * One linked account's event: `id` is the stream's cursor (persist it), `event.id` the
 * account's own event id. `redacted`: per listed key lacking a scope a message's text drew on,
 * the text it reads instead; hand each key `surfaceEventFor(item, keyId)`, never `event` itself.
 */
export type SurfaceAccountEvent = {
  type: 'event';
  id: number;
  account: string;
  key_ids: string[];
  event: PresenceEvent;
  redacted: Record<string, string>;
};

/** The event as the linked key `keyId` may read it (a message's text redacted where its scopes fall short). */
export function surfaceEventFor(item: SurfaceAccountEvent, keyId: string): PresenceEvent {
  const text = item.redacted[keyId];
  return text !== undefined && item.event.type === 'message' ? { ...item.event, data: { ...item.event.data, text } } : item.event;
}
/** A key this surface linked was revoked: its user is unlinked, and its account's events stop. */
export type LinkRevokedEvent = { type: 'link_revoked'; id: number; data: z.output<typeof LinkRevokedData> };
export type SurfaceEventsItem = SurfaceAccountEvent | LinkRevokedEvent | GapEvent | UnrecognizedEvent;

export type SurfaceSubscribeOptions = SubscribeOptions & {
  /** Read only the accounts of partition `index` of `of` (by account); every account is in exactly one. */
  partition?: { index: number; of: number };
};

export type SurfaceSubscription = AsyncIterable<SurfaceEventsItem> & { readonly lastEventId: number | undefined; close(): void };

function typedSurfaceEvent(id: number, event: string, raw: string): SurfaceAccountEvent | LinkRevokedEvent | UnrecognizedEvent {
  const data = readData(raw);
  if (!data.ok) return unrecognized(id, event, data);
  if (event === 'link_revoked') {
    const parsed = LinkRevokedData.safeParse(data.value);
    return parsed.success
      ? { type: 'link_revoked', id, data: parsed.data }
      : unrecognized(id, event, data, parsed.error.issues[0]?.message);
  }
  const parsed = SurfaceEventData.safeParse(data.value);
  if (!parsed.success) return unrecognized(id, event, data, parsed.error.issues[0]?.message);
  const inner = typedData(parsed.data.event.id, parsed.data.event.type, { ok: true, value: parsed.data.event.data });
  if (inner.type === 'unrecognized') return { ...inner, id };
  const { account, key_ids, redacted = {} } = parsed.data;
  return { type: 'event', id, account, key_ids, event: inner, redacted };
}

export const surfaceResource = (http: Http) => ({
  get: (options?: RequestOptions): Promise<SurfaceStatusReturnType> =>
    http.json(SurfaceStatus, { method: 'GET', path: '/v1/surface' }, options),
  /** Redeems a link code for this surface: answers the linked key's id and no secret. */
  redeem: (code: string, params: RedeemLinkParameters, options?: RequestOptions): Promise<SurfaceRedeemReturnType> =>
    http.json(SurfaceRedeemResult, { method: 'POST', path: `/v1/links/${encodeURIComponent(code)}/redeem`, body: params }, options),
  /** Moves a key this bot holds the secret of (linked before surface tokens) over to the surface; forget the secret afterwards. */
  adopt: (params: { key: string; surface_user: string }, options?: RequestOptions): Promise<SurfaceRedeemReturnType> =>
    http.json(SurfaceRedeemResult, { method: 'POST', path: '/v1/surface/adopt', body: params }, options),
  events: {
    /** `for await (const e of client.surface.events.subscribe({ lastEventId }))`: every linked user's events, one cursor. */
    subscribe: ({ partition, ...options }: SurfaceSubscribeOptions = {}): SurfaceSubscription =>
      subscribeStream(http, options, {
        path: '/v1/surface/events',
        query: partition ? { partition: partition.index, of: partition.of } : undefined,
        typed: typedSurfaceEvent,
      }),
  },
});
