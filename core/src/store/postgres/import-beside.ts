// The import's part for the ports beside the store (import-lowdb.ts): webhook endpoints with
// their cursors and delivery logs, passkeys, and the passkey links still open. Without them an
// install moved up would lose its endpoints (a backend stops getting events, silently) and its
// passkeys (every hold over passkey_over could only be denied). Endpoints are read through
// their embedded port, which replays its log as a server would; a lease is process-local there,
// so none is copied, and an endpoint's due time is kept as its record says. Tickets have no
// listing in the port: their log is read as the port reads it at start, the newest line of a
// hash winning, and only links that may still be used are copied.
import path from 'node:path';
import type postgres from 'postgres';
import { PasskeyTicketRecord } from '../../passkeys/passkey-records';
import { createAppendLog } from '../append-log';
import { createLowdbPasskeyStore } from '../lowdb/passkeys';
import { createLowdbWebhookStore } from '../lowdb/webhooks';
import { webhookDueAt } from '../webhook-records';
import { DELIVERIES_KEPT } from '../webhook-store-port';
import { json } from './records';

export type BesideCounts = { webhooks: number; webhook_deliveries: number; passkeys: number; passkey_links: number };

/** Copies what the ports beside the store keep for `accounts` in `dataDir`, inside `tx`. */
export async function copyBeside(
  tx: postgres.TransactionSql,
  dataDir: string,
  accounts: readonly string[],
  now: number,
): Promise<BesideCounts> {
  const counts: BesideCounts = { webhooks: 0, webhook_deliveries: 0, passkeys: 0, passkey_links: 0 };
  const hooks = await createLowdbWebhookStore({ dataDir, fsync: false });
  const passkeys = await createLowdbPasskeyStore({ dataDir, fsync: false });
  try {
    for (const accountId of accounts) {
      for (const w of await hooks.listWebhooks(accountId)) {
        const r = { ...w, lease: null, due_at: webhookDueAt({ ...w, lease: null }) };
        await tx`INSERT INTO webhooks (id, account_id, created_at, due_at, doc)
          VALUES (${r.id}, ${r.account_id}, ${r.created_at}, ${r.due_at}, ${json(r)}::text::json)`;
        counts.webhooks++;
        // Newest first from the port: inserted oldest first, so the log's order is kept.
        for (const d of (await hooks.listDeliveries(w.id, DELIVERIES_KEPT)).reverse()) {
          await tx`INSERT INTO webhook_deliveries (webhook_id, doc) VALUES (${w.id}, ${json(d)}::text::json)`;
          counts.webhook_deliveries++;
        }
      }
      for (const c of await passkeys.listCredentials(accountId)) {
        await tx`INSERT INTO passkey_credentials (credential_id, id, account_id, doc, counter, created_at)
          VALUES (${c.credential_id}, ${c.id}, ${c.account_id}, ${json(c)}::text::json, ${c.counter}, ${c.created_at})`;
        counts.passkeys++;
      }
    }
    counts.passkey_links = await copyOpenTickets(tx, dataDir, new Set(accounts), now);
  } finally {
    await Promise.all([hooks.close(), passkeys.close()]);
  }
  return counts;
}

async function copyOpenTickets(tx: postgres.TransactionSql, dataDir: string, accounts: ReadonlySet<string>, now: number) {
  const log = createAppendLog(path.join(dataDir, 'data', 'passkeys', 'tickets.jsonl'), PasskeyTicketRecord, { fsync: false });
  try {
    const newest = new Map<string, PasskeyTicketRecord>();
    for (const t of await log.readAll()) newest.set(t.hash, t);
    let n = 0;
    for (const t of newest.values()) {
      if (t.used_at !== null || t.expires_at <= now || !accounts.has(t.account_id)) continue;
      await tx`INSERT INTO passkey_tickets (hash, kind, account_id, doc, challenge, used_at, expires_at)
        VALUES (${t.hash}, ${t.kind}, ${t.account_id}, ${json(t)}::text::json, ${t.challenge}, ${t.used_at}, ${t.expires_at})`;
      n++;
    }
    return n;
  } finally {
    await log.close();
  }
}
