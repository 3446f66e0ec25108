// The webhooks port on PostgreSQL (tables of migrations/0050_webhooks.sql): the record whole
// beside the columns its queries read. An update runs under the row's lock (SELECT … FOR
// UPDATE), which is what makes an endpoint's lease hold across servers. A change of what an
// endpoint is (made, removed, enabled or disabled, its url or types) NOTIFYs the accounts
// channel with its account, so servers that remember an account's endpoints read them again.
import { type DeliveryRecord, DeliveryRecord as DeliverySchema, WebhookRecord, webhookDueAt } from '../webhook-records';
import { DELIVERIES_KEPT, type WebhookStorePort } from '../webhook-store-port';
import { ACCOUNTS_CHANNEL } from './channels';
import { type DatabaseSource, useDatabase } from './database';
import { mappingStoreErrors } from './database-error';
import { callerSays, type Doc, json } from './records';

/** Whether a change is one other servers' memory of the account's endpoints must hear of. */
const reshaped = (a: WebhookRecord, b: WebhookRecord) =>
  a.state !== b.state || a.url !== b.url || a.mode !== b.mode || a.events.join() !== b.events.join();

/** On the server's one pool (`{ sql }`), or, given a URL (the CLI, tests), a small pool of its own. */
export async function createPostgresWebhookStore({ max = 3, ...source }: DatabaseSource & { max?: number }): Promise<WebhookStorePort> {
  const { sql, end } = useDatabase(source, max);
  const parse = (rows: Doc[]) => rows.map((r) => WebhookRecord.parse(r.doc));

  const store: WebhookStorePort = {
    async insertWebhook(record) {
      const r = { ...record, due_at: webhookDueAt(record) };
      await sql.begin(async (tx) => {
        await tx`INSERT INTO webhooks (id, account_id, created_at, due_at, doc)
          VALUES (${r.id}, ${r.account_id}, ${r.created_at}, ${r.due_at}, ${json(r)}::text::json)`;
        await tx`SELECT pg_notify(${ACCOUNTS_CHANNEL}, ${r.account_id})`;
      });
    },
    async getWebhook(id) {
      return parse(await sql<Doc[]>`SELECT doc FROM webhooks WHERE id = ${id}`)[0] ?? null;
    },
    async listWebhooks(accountId) {
      return parse(await sql<Doc[]>`SELECT doc FROM webhooks WHERE account_id = ${accountId} ORDER BY created_at, id`);
    },
    async updateWebhook(id, update) {
      return sql.begin(async (tx) => {
        const [row] = await tx<Doc[]>`SELECT doc FROM webhooks WHERE id = ${id} FOR UPDATE`;
        if (!row) return null;
        const current = WebhookRecord.parse(row.doc);
        const changed = callerSays(() => update(current));
        if (changed === current) return current;
        const next = { ...changed, due_at: webhookDueAt(changed) };
        await tx`UPDATE webhooks SET due_at = ${next.due_at}, doc = ${json(next)}::text::json WHERE id = ${id}`;
        if (reshaped(current, next)) await tx`SELECT pg_notify(${ACCOUNTS_CHANNEL}, ${next.account_id})`;
        return next;
      });
    },
    async deleteWebhook(id) {
      const rows = await sql<{ account_id: string }[]>`DELETE FROM webhooks WHERE id = ${id} RETURNING account_id,
        pg_notify(${ACCOUNTS_CHANNEL}, account_id)::text AS notified`;
      return rows.length > 0;
    },
    async dueWebhooks(now, limit) {
      return parse(await sql<Doc[]>`SELECT doc FROM webhooks WHERE due_at IS NOT NULL AND due_at <= ${now} ORDER BY due_at LIMIT ${limit}`);
    },
    async enabledWebhooks() {
      return parse(await sql<Doc[]>`SELECT doc FROM webhooks WHERE doc->>'state' = 'enabled'`);
    },
    async appendDelivery(d) {
      // The insert and the trim of what the endpoint no longer keeps, in one statement (the
      // trim sees the rows before the insert: it keeps one fewer of them).
      await sql`WITH ins AS (
          INSERT INTO webhook_deliveries (webhook_id, doc)
          SELECT ${d.webhook_id}, ${json(d)}::text::json WHERE EXISTS (SELECT 1 FROM webhooks WHERE id = ${d.webhook_id})
          RETURNING seq
        )
        DELETE FROM webhook_deliveries WHERE webhook_id = ${d.webhook_id} AND EXISTS (SELECT 1 FROM ins)
          AND seq NOT IN (SELECT seq FROM webhook_deliveries WHERE webhook_id = ${d.webhook_id} ORDER BY seq DESC LIMIT ${DELIVERIES_KEPT - 1})`;
    },
    async listDeliveries(webhookId, limit) {
      const rows = await sql<Doc[]>`SELECT doc FROM webhook_deliveries WHERE webhook_id = ${webhookId} ORDER BY seq DESC LIMIT ${limit}`;
      return rows.map((r) => DeliverySchema.parse(r.doc) as DeliveryRecord);
    },
    async close() {
      await end();
    },
  };
  return mappingStoreErrors(store);
}
