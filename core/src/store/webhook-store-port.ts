// The webhooks port: endpoints and their delivery log. A port of its own beside StorePort
// (same adapters: lowdb and PostgreSQL), as the surfaces' is, so the main store's record
// families stay as they are. What is delivered is read from the main store's events log; this
// keeps only where each endpoint stands in it.
import type { DeliveryRecord, WebhookRecord } from './webhook-records';

/** Attempts kept per endpoint: older ones go as new ones are logged. */
export const DELIVERIES_KEPT = 100;

export interface WebhookStorePort {
  insertWebhook(record: WebhookRecord): Promise<void>;
  getWebhook(id: string): Promise<WebhookRecord | null>;
  /** The account's endpoints, oldest first. */
  listWebhooks(accountId: string): Promise<WebhookRecord[]>;
  /**
   * Runs `update` on the stored record under its lock (a lease taken here excludes every
   * other server's) and stores what it answers, with `due_at` recomputed; null when there is
   * no such record. Answering the record unchanged writes nothing.
   */
  updateWebhook(id: string, update: (r: WebhookRecord) => WebhookRecord): Promise<WebhookRecord | null>;
  /** Removes it and its delivery log; answers whether it existed. */
  deleteWebhook(id: string): Promise<boolean>;
  /** Across accounts, one indexed read: enabled endpoints whose `due_at` is at or before `now`. */
  dueWebhooks(now: number, limit: number): Promise<WebhookRecord[]>;
  /** Every enabled endpoint (a start with no server running before: what may have events waiting). */
  enabledWebhooks(): Promise<WebhookRecord[]>;

  /** Logs an attempt; the endpoint keeps its newest DELIVERIES_KEPT. */
  appendDelivery(delivery: DeliveryRecord): Promise<void>;
  /** Newest first. */
  listDeliveries(webhookId: string, limit: number): Promise<DeliveryRecord[]>;

  close(): Promise<void>;
}
