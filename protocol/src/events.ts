// Events on GET /v1/events. Each type is visible only to keys holding its scope.
import { z } from 'zod';
import { queryInteger, type Scope, Timestamp } from './common';
import { PasskeyHold } from './passkeys';

export const eventTypes = ['message', 'tx', 'memory', 'needs_confirm', 'confirm', 'webhook_disabled'] as const;
export const EventType = z.enum(eventTypes).meta({ id: 'EventType' });
export type EventType = z.infer<typeof EventType>;

export const eventScope: Record<EventType, Scope> = {
  message: 'talk',
  memory: 'memory:read',
  tx: 'wallet:read',
  needs_confirm: 'wallet:read',
  confirm: 'wallet:read',
  webhook_disabled: 'admin',
};

export const MemoryEventData = z
  .object({ key: z.string(), tier: z.enum(['pinned', 'fading', 'dropped']), at: Timestamp })
  .meta({ id: 'MemoryEvent' });
export const MessageEventData = z
  .object({
    text: z.string(),
    cause: z.string(),
    at: Timestamp,
    /** The scopes the text drew on; a stream whose key lacks one gets the text redacted, naming them. */
    scopes: z.array(z.string()).optional(),
  })
  .meta({ id: 'MessageEvent' });
export const TxEventData = z
  .object({
    hash: z.string(),
    block: z.number().int(),
    intent: z.object({ id: z.string(), summary: z.string(), amount: z.string(), source: z.string() }),
    at: Timestamp,
  })
  .meta({ id: 'TxEvent' });
/** The hold an event is about: its confirm id and the intent it holds (as `confirm list` shows them). */
const HoldIds = { confirm_id: z.string(), intent_id: z.string() };
export const NeedsConfirmEventData = z
  .object({
    ...HoldIds,
    summary: z.string(),
    amount: z.string(),
    value_usd: z.string(),
    expires_at: Timestamp,
    timeout_s: z.number().int(),
    at: Timestamp,
    ...PasskeyHold.shape,
  })
  .meta({ id: 'NeedsConfirmEvent' });
export const ConfirmEventData = z
  .object({
    ...HoldIds,
    status: z.enum(['executed', 'denied', 'expired', 'failed']),
    tx: z.string().optional(),
    block: z.number().int().optional(),
    reason: z.string().optional(),
    at: Timestamp,
  })
  .meta({ id: 'ConfirmEvent' });
/** A webhook endpoint stopped: its deliveries kept failing through the whole retry schedule, or the key that made it was revoked. */
export const WebhookDisabledEventData = z
  .object({
    webhook_id: z.string(),
    url: z.string(),
    reason: z.enum(['failing', 'key_revoked']),
    /** The id of the event it could not deliver (failing only); re-enabling resumes there. */
    event_id: z.number().int().nullable(),
    at: Timestamp,
  })
  .meta({ id: 'WebhookDisabledEvent' });
export const GapEventData = z.object({ oldest_id: z.number().int() }).meta({ id: 'GapEvent' });

/** Each event type's payload schema. `satisfies` breaks the build when a type is added without one. */
export const eventDataSchemas = {
  message: MessageEventData,
  tx: TxEventData,
  memory: MemoryEventData,
  needs_confirm: NeedsConfirmEventData,
  confirm: ConfirmEventData,
  webhook_disabled: WebhookDisabledEventData,
} satisfies Record<EventType, z.ZodType>;

/** The payload of one event type, e.g. `EventData<'needs_confirm'>`. */
export type EventData<T extends EventType> = z.output<(typeof eventDataSchemas)[T]>;
/**
 * An event's type and its payload, one member per type (type → payload): what core emits is
 * checked against it, so a payload that drifts from these schemas does not compile.
 */
export type TypedEventData = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

/**
 * The envelope as it crosses the wire: `data` stays open here so one event a reader does not
 * know (a newer type) is skipped on its own; readers narrow it with `eventDataSchemas`.
 */
export const PresenceEvent = z
  .object({
    id: z.number().int().positive(),
    type: EventType,
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'PresenceEvent' });
export type PresenceEvent = z.infer<typeof PresenceEvent>;

export const EventsQuery = z.strictObject({
  last_event_id: queryInteger(z.number().int().min(0))
    .optional()
    .describe('Resume after this id, for a client that cannot send Last-Event-ID (the header wins)'),
});
