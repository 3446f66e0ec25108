// The webhooks port on the embedded store: two append-only logs under data/webhooks/
// (endpoints: the newest line of an id wins, a tombstone removes it; deliveries: one line per
// attempt). Everything is held in memory (one process owns the data directory); a change costs
// one appended line, and a log is rewritten with only what it keeps once it holds several
// times that, so the rewrite's cost is shared by the lines that made it due.
import path from 'node:path';
import { z } from 'zod';
import { setOf } from '../../collections/set-of';
import { createKeyedLock } from '../../concurrency/keyed-lock';
import { createAppendLog } from '../append-log';
import { DeliveryRecord, WebhookRecord, webhookDueAt } from '../webhook-records';
import { DELIVERIES_KEPT, type WebhookStorePort } from '../webhook-store-port';

const Tombstone = z.object({ id: z.string(), deleted: z.literal(true) });
const EndpointLine = z.union([Tombstone, WebhookRecord]);
type EndpointLine = z.infer<typeof EndpointLine>;

/** A log is rewritten once it holds this many lines more than twice what it keeps. */
const SLACK = 1_000;

export async function createLowdbWebhookStore({ dataDir, fsync = true }: { dataDir: string; fsync?: boolean }): Promise<WebhookStorePort> {
  const dir = path.join(dataDir, 'data', 'webhooks');
  const endpointLog = createAppendLog<EndpointLine>(path.join(dir, 'endpoints.jsonl'), EndpointLine, { fsync });
  const deliveryLog = createAppendLog<DeliveryRecord>(path.join(dir, 'deliveries.jsonl'), DeliveryRecord, { fsync });
  const endpoints = new Map<string, WebhookRecord>();
  /** The due index: endpoints with a `due_at` (a retry waiting, a lease held); idle ones are not in it. */
  const timed = new Set<string>();
  /** Endpoint ids by account: a wake-up for an account without endpoints costs a map lookup. */
  const byAccount = new Map<string, Set<string>>();
  const put = (r: WebhookRecord) => {
    endpoints.set(r.id, r);
    setOf(byAccount, r.account_id).add(r.id);
    if (r.due_at === null) timed.delete(r.id);
    else timed.add(r.id);
  };
  const remove = (id: string) => {
    const r = endpoints.get(id);
    const ids = r ? byAccount.get(r.account_id) : undefined;
    ids?.delete(id);
    if (r && ids?.size === 0) byAccount.delete(r.account_id);
    endpoints.delete(id);
    timed.delete(id);
  };
  let endpointLines = 0;
  for (const line of await endpointLog.readAll()) {
    endpointLines++;
    if ('deleted' in line) remove(line.id);
    // A lease lives as long as this process: one that a crash left behind is void at start.
    else put(settle({ ...line, lease: null }));
  }
  const deliveries = new Map<string, DeliveryRecord[]>();
  let deliveryLines = 0;
  for (const d of await deliveryLog.readAll()) {
    deliveryLines++;
    if (!endpoints.has(d.webhook_id)) continue;
    keep(d);
  }
  const lock = createKeyedLock();

  function settle(r: WebhookRecord): WebhookRecord {
    return { ...r, due_at: webhookDueAt(r) };
  }
  function keep(d: DeliveryRecord) {
    let list = deliveries.get(d.webhook_id);
    if (!list) {
      list = [];
      deliveries.set(d.webhook_id, list);
    }
    list.push(d);
    if (list.length > DELIVERIES_KEPT) list.splice(0, list.length - DELIVERIES_KEPT);
  }
  async function writeEndpoint(line: EndpointLine, publish: () => void) {
    await endpointLog.append([line], publish);
    if (++endpointLines > 2 * endpoints.size + SLACK)
      await endpointLog.rewrite(
        () => [...endpoints.values()],
        (kept) => {
          endpointLines = kept.length;
        },
      );
  }

  return {
    insertWebhook(record) {
      return lock(record.id, async () => {
        const r = settle(record);
        await writeEndpoint(r, () => put(r));
      });
    },
    async getWebhook(id) {
      return endpoints.get(id) ?? null;
    },
    async listWebhooks(accountId) {
      const ids = byAccount.get(accountId);
      if (!ids) return [];
      return [...ids].flatMap((id) => endpoints.get(id) ?? []).sort((a, b) => a.created_at - b.created_at);
    },
    updateWebhook(id, update) {
      return lock(id, async () => {
        const current = endpoints.get(id);
        if (!current) return null;
        const next = update(current);
        if (next === current) return current;
        const r = settle(next);
        await writeEndpoint(r, () => put(r));
        return r;
      });
    },
    deleteWebhook(id) {
      return lock(id, async () => {
        if (!endpoints.has(id)) return false;
        await writeEndpoint({ id, deleted: true }, () => {
          remove(id);
          deliveries.delete(id);
        });
        return true;
      });
    },
    async dueWebhooks(now, limit) {
      // Only endpoints with a time are looked at: an idle one costs nothing here.
      const due: WebhookRecord[] = [];
      for (const id of timed) {
        const r = endpoints.get(id);
        if (r?.due_at != null && r.due_at <= now && due.push(r) >= limit) break;
      }
      return due;
    },
    async enabledWebhooks() {
      return [...endpoints.values()].filter((r) => r.state === 'enabled');
    },
    async appendDelivery(d) {
      await deliveryLog.append([d], () => keep(d));
      if (++deliveryLines > 2 * DELIVERIES_KEPT * Math.max(1, deliveries.size) + SLACK)
        await deliveryLog.rewrite(
          () => [...deliveries.values()].flat(),
          (kept) => {
            deliveryLines = kept.length;
          },
        );
    },
    async listDeliveries(webhookId, limit) {
      return (deliveries.get(webhookId) ?? []).slice(-limit).reverse();
    },
    async close() {
      await lock.drain();
      await Promise.all([endpointLog.close(), deliveryLog.close()]);
    },
  };
}
