// An endpoint's delivery lease in the store (a row lock on PostgreSQL): one server at a time
// delivers to an endpoint, across all servers. A lease ends by itself at `until`, so a holder
// that dies lets another server take over then; each taken lease has a token of its own, so a
// holder that lost its lease changes nothing.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock/clock';
import type { WebhookRecord } from '../store/webhook-records';
import type { WebhookStorePort } from '../store/webhook-store-port';

export function createWebhookLeases({
  webhooks,
  clock,
  leaseMs,
  serverId,
  noteDue,
}: {
  webhooks: WebhookStorePort;
  clock: Clock;
  leaseMs: number;
  /** Names this server in the leases it takes (logs, tests); default a random one. */
  serverId?: string;
  /** A due time this server set (a lease's end): the beat reads the due index once it has come. */
  noteDue: (at: number) => void;
}) {
  const server = serverId ?? randomUUID().slice(0, 8);
  let leases = 0;

  /** Takes the lease when the endpoint may be delivered to now; answers the record holding it. */
  async function lease(id: string, { ping = false } = {}): Promise<{ r: WebhookRecord; token: string } | null> {
    const token = `${server}:${++leases}`;
    const now = clock.now();
    const r = await webhooks.updateWebhook(id, (r) => {
      if (r.lease && r.lease.until > now) return r;
      if (!ping && (r.state !== 'enabled' || (r.retry_at !== null && r.retry_at > now))) return r;
      return { ...r, lease: { token, until: now + leaseMs } };
    });
    if (r?.lease?.token !== token) return null;
    // Should the delivery fail without letting go, the lease's end brings the endpoint back.
    noteDue(r.lease.until);
    return { r, token };
  }

  /** Applies `patch` if the lease is still ours; keeps it (renewed) or lets go. Null when it was lost. */
  async function settle(id: string, token: string, patch: Partial<WebhookRecord>, keep: boolean): Promise<WebhookRecord | null> {
    let applied = false;
    const now = clock.now();
    const r = await webhooks.updateWebhook(id, (r) => {
      if (r.lease?.token !== token) return r;
      applied = true;
      return { ...r, ...patch, lease: keep ? { token, until: now + leaseMs } : null };
    });
    return applied ? r : null;
  }

  return { lease, settle };
}
