// Webhooks for direct API users (DESIGN.md "Webhooks"): endpoints an admin key registers, the
// signed requests Presence sends them (Standard Webhooks headers) and the log of attempts.
// Request bodies are strict: an unknown field is a 400, not silently dropped. Each body has an
// id (`.meta`), its name in the OpenAPI document.
import { z } from 'zod';
import { KeyKind, queryInteger, Timestamp, withSecret } from './common';
import { EventType } from './events';

/** At most this many endpoints per account (live and test keys' together). */
export const WEBHOOKS_PER_ACCOUNT = 16;
/** The Standard Webhooks headers every delivery carries. */
export const WEBHOOK_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' } as const;
/** Seconds between retries of a failed delivery; after the last the endpoint is disabled. */
export const WEBHOOK_RETRY_SCHEDULE_S = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000] as const;

export const WebhookId = z.string().regex(/^wh_[0-9A-Za-z]{16}$/, 'a webhook id looks like wh_ followed by 16 letters or digits');
export const WebhookState = z.enum(['enabled', 'disabled']).meta({ id: 'WebhookState' });
export type WebhookState = z.infer<typeof WebhookState>;

const WebhookUrl = z
  .string()
  .min(1)
  .max(2_048)
  .describe('https URL resolving to a public address (http and private addresses only with PRESENCE_WEBHOOK_ALLOW_PRIVATE=1)');
const WebhookEvents = z.array(EventType).max(16).describe('Event types to send; empty or absent: every type the creating key may read');
const WebhookDescription = z.string().max(256);

export const WebhookCreateRequest = z
  .object({ url: WebhookUrl, events: WebhookEvents.optional(), description: WebhookDescription.optional() })
  .strict()
  .meta({ id: 'WebhookCreateRequest' });
export type WebhookCreateRequest = z.infer<typeof WebhookCreateRequest>;

/** Any of what a create sets, and the state; what is absent stays as it is. */
export const WebhookUpdateRequest = WebhookCreateRequest.partial()
  .extend({
    state: WebhookState.optional().describe('enabled resumes from the cursor (a failing endpoint starts its schedule again)'),
  })
  .meta({ id: 'WebhookUpdateRequest' });
export type WebhookUpdateRequest = z.infer<typeof WebhookUpdateRequest>;

export const WebhookReplayRequest = z
  .object({ since_event_id: z.number().int().min(0).describe('Events after this id are sent again, in order') })
  .strict()
  .meta({ id: 'WebhookReplayRequest' });

export const WebhookParams = z.object({ id: WebhookId });

export const WebhookView = z
  .object({
    id: WebhookId,
    url: z.string(),
    events: z.array(EventType),
    description: z.string(),
    state: WebhookState,
    disabled_reason: z.enum(['failing', 'key_revoked', 'by_request']).nullable(),
    /** The kind of the key that made it: a test key's endpoint gets test-mode events only. */
    mode: KeyKind,
    key_id: z.string(),
    /** The last event id handled (delivered, or not for this endpoint); the next delivery is after it. */
    cursor: z.number().int().min(0),
    created_at: Timestamp,
  })
  .meta({ id: 'Webhook' });
export type WebhookView = z.infer<typeof WebhookView>;

export const WebhookCreated = withSecret(WebhookView, 'WebhookWithSecret', 'whsec_ + base64 of 32 bytes; shown once');
export type WebhookCreated = z.infer<typeof WebhookCreated>;

export const WebhookList = z.object({ webhooks: z.array(WebhookView) }).meta({ id: 'WebhookList' });

export const WebhookSecret = z
  .object({
    secret: z.string().describe('The new secret; the previous one keeps signing beside it until `previous_expires_at`'),
    previous_expires_at: Timestamp,
  })
  .meta({ id: 'WebhookSecret' });

export const WebhookDelivery = z
  .object({
    /** The webhook-id header: `evt_<account>_<event id>` (stable across retries), or `ping_…`. */
    message_id: z.string(),
    event_id: z.number().int().nullable(),
    type: z.string(),
    attempt: z.number().int().min(1),
    outcome: z.enum(['delivered', 'failed']),
    status: z.number().int().nullable().describe('The HTTP status answered; null when none came'),
    duration_ms: z.number().int().min(0),
    error: z.string().nullable(),
    at: Timestamp,
    next_attempt_at: Timestamp.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const WebhookDeliveryList = z.object({ deliveries: z.array(WebhookDelivery) }).meta({ id: 'WebhookDeliveryList' });
export const WebhookDeliveriesQuery = z.strictObject({ limit: queryInteger(z.number().int().min(1).max(100)).default(50) });

/** The JSON body of every delivery: the SSE event's JSON (ping: a test delivery with id 0). */
export const WebhookPayload = z
  .object({
    id: z.number().int().min(0),
    type: z.union([EventType, z.literal('ping')]),
    created_at: Timestamp,
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'WebhookPayload' });
export type WebhookPayload = z.infer<typeof WebhookPayload>;

/** POST /v1/webhooks/{id}/test: how the ping went — its delivery attempt, as the deliveries log keeps it too. */
export const WebhookTestResult = WebhookDelivery.pick({ message_id: true, status: true, duration_ms: true, error: true })
  .extend({ delivered: z.boolean() })
  .meta({ id: 'WebhookTestResult' });
export type WebhookTestResult = z.infer<typeof WebhookTestResult>;
