// The Server-Sent Events frames of the three streams (GET /v1/events, POST /v1/messages with
// stream, GET /v1/surface/events), as schemas: one member per `event:` name, its `data:` the
// JSON named here, `id:` where the stream has ids. They describe the wire for the OpenAPI
// document (a generated client narrows a frame's data by its event name); readers still parse
// one frame at a time, so an event added later is skipped, not an error.
import { z } from 'zod';
import { Problem } from './common';
import { ConfirmEventData, GapEventData, MemoryEventData, MessageEventData, NeedsConfirmEventData, TxEventData } from './events';
import { MessageResult } from './messages';
import { LinkRevokedData, SurfaceEventData } from './surfaces';

const EventId = z.number().int().positive().describe('`id:` the event id; send the last one seen as Last-Event-ID to resume');
const frame = <E extends string, D extends z.ZodType>(event: E, data: D, id?: z.ZodType) =>
  z.object({ event: z.literal(event), ...(id ? { id } : {}), data });
const errorFrame = frame('error', Problem).describe('The stream failed and ends: a problem, as an error answer would carry');

export const EventsStreamFrame = z
  .discriminatedUnion('event', [
    frame('message', MessageEventData, EventId),
    frame('tx', TxEventData, EventId),
    frame('memory', MemoryEventData, EventId),
    frame('needs_confirm', NeedsConfirmEventData, EventId),
    frame('confirm', ConfirmEventData, EventId),
    frame('gap', GapEventData).describe('Events before oldest_id are no longer kept: they cannot be replayed'),
    errorFrame,
  ])
  .meta({ id: 'EventsStreamFrame', description: 'One frame of GET /v1/events (`event:`, `id:`, `data:` as JSON)' });

export const TurnTokenData = z.object({ text: z.string() }).meta({ id: 'TurnToken' });
export const TurnToolData = z.object({ name: z.string(), args: z.record(z.string(), z.unknown()) }).meta({ id: 'TurnTool' });
export const TurnNeedsConfirmData = z.object({ confirm_id: z.string() }).meta({ id: 'TurnNeedsConfirm' });

export const TurnStreamFrame = z
  .discriminatedUnion('event', [
    frame('token', TurnTokenData).describe('Reply text as it is written; many'),
    frame('tool', TurnToolData).describe('The presence used a tool (informational)'),
    frame('needs_confirm', TurnNeedsConfirmData).describe('An action crossed confirm_over: answer it with POST /v1/confirm/{confirm_id}'),
    frame('done', MessageResult).describe('Last frame: the turn, as the JSON answer would carry it'),
    errorFrame,
  ])
  .meta({ id: 'TurnStreamFrame', description: 'One frame of POST /v1/messages with stream (no ids: a turn is not resumed)' });

const FeedId = z
  .number()
  .int()
  .positive()
  .describe('`id:` the feed position, one cursor for all linked accounts; resume with Last-Event-ID');
export const SurfaceStreamFrame = z
  .discriminatedUnion('event', [
    ...(['message', 'tx', 'memory', 'needs_confirm', 'confirm'] as const).map((type) =>
      frame(type, SurfaceEventData, FeedId).describe(`An account's ${type} event, for the linked keys that may see it`),
    ),
    frame('link_revoked', LinkRevokedData, FeedId).describe('The key no longer acts for its user; its account’s events stop'),
    errorFrame,
  ] as unknown as [z.ZodObject, ...z.ZodObject[]])
  .meta({ id: 'SurfaceStreamFrame', description: 'One frame of GET /v1/surface/events' });
