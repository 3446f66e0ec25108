// What the store keeps about webhook endpoints: the endpoint itself with its delivery state
// (the cursor over the account's events log, the failures of the event at the cursor, when
// the next try is due, and the lease of the one server delivering), and the log of attempts.
import { z } from 'zod';
import { Sealed } from './documents';

export const WebhookSecretRecord = z.object({
  /** Sealed under the master key (keystore.sealText) when core has one; otherwise as is. */
  secret: z.union([z.string(), Sealed]),
  /** ms epoch after which it no longer signs (a rotated-out secret); null: current. */
  expires_at: z.number().nullable(),
});
export type WebhookSecretRecord = z.infer<typeof WebhookSecretRecord>;

export const WebhookRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  /** The key that made it: what it may read is what is sent; revoking it disables the endpoint. */
  key_id: z.string(),
  mode: z.enum(['live', 'test']),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string(),
  state: z.enum(['enabled', 'disabled']),
  disabled_reason: z.enum(['failing', 'key_revoked', 'by_request']).nullable(),
  secrets: z.array(WebhookSecretRecord).min(1),
  created_at: z.number(),
  /** The last event id handled: delivered, or not for this endpoint. */
  cursor: z.number().int(),
  /** Failed attempts at the event after the cursor. */
  attempts: z.number().int(),
  /** ms epoch before which the event after the cursor is not tried again (a retry's wait); null: now. */
  retry_at: z.number().nullable(),
  /** The server delivering, until when (a holder that died is replaced once it passes). */
  lease: z.object({ token: z.string(), until: z.number() }).nullable(),
  /**
   * When someone must look at it (the due index): a retry's time, a lease's end; null when it
   * waits for nothing but new events. Kept by `webhookDueAt`, never set by hand.
   */
  due_at: z.number().nullable(),
});
export type WebhookRecord = z.infer<typeof WebhookRecord>;

/** The due index's value for a record (see `due_at`). */
export function webhookDueAt(r: Omit<WebhookRecord, 'due_at'>): number | null {
  if (r.state !== 'enabled') return null;
  if (r.lease) return r.lease.until;
  return r.retry_at;
}

export const DeliveryRecord = z.object({
  webhook_id: z.string(),
  message_id: z.string(),
  event_id: z.number().int().nullable(),
  type: z.string(),
  attempt: z.number().int(),
  outcome: z.enum(['delivered', 'failed']),
  status: z.number().int().nullable(),
  duration_ms: z.number().int(),
  error: z.string().nullable(),
  at: z.number(),
  next_at: z.number().nullable(),
});
export type DeliveryRecord = z.infer<typeof DeliveryRecord>;
