// The passkeys port on PostgreSQL (tables of migrations/0045_passkeys.sql). Each single-use
// step is one UPDATE … WHERE <condition> RETURNING: whichever server's statement commits first
// wins, and the other's matches no row.
import { PasskeyCredentialRecord, PasskeyTicketRecord } from '../../passkeys/passkey-records';
import type { PasskeyStorePort } from '../../passkeys/passkey-store-port';
import { type DatabaseSource, useDatabase } from './database';
import { mappingStoreErrors } from './database-error';

type CredentialRow = { doc: unknown; counter: string };
const toCredential = (r: CredentialRow): PasskeyCredentialRecord => ({
  ...PasskeyCredentialRecord.parse(r.doc),
  counter: Number(r.counter),
});
type TicketRow = { doc: unknown; challenge: string | null; used_at: number | null };
const toTicket = (r: TicketRow) => PasskeyTicketRecord.parse({ ...(r.doc as object), challenge: r.challenge, used_at: r.used_at });
const json = (v: unknown) => JSON.stringify(v);

/** On the server's one pool (`{ sql }`), or, given a URL (tests), a small pool of its own. */
export async function createPostgresPasskeyStore({ max = 2, ...source }: DatabaseSource & { max?: number }): Promise<PasskeyStorePort> {
  const { sql, end } = useDatabase(source, max);

  const store: PasskeyStorePort = {
    async insertCredential(c) {
      const r = await sql`INSERT INTO passkey_credentials (credential_id, id, account_id, doc, counter, created_at)
        VALUES (${c.credential_id}, ${c.id}, ${c.account_id}, ${json(c)}::text::json, ${c.counter}, ${c.created_at})
        ON CONFLICT (credential_id) DO NOTHING`;
      return r.count === 1;
    },
    async findCredential(credentialId) {
      const [row] = await sql<CredentialRow[]>`SELECT doc, counter::text FROM passkey_credentials WHERE credential_id = ${credentialId}`;
      return row ? toCredential(row) : null;
    },
    async listCredentials(accountId) {
      const rows = await sql<CredentialRow[]>`SELECT doc, counter::text FROM passkey_credentials
        WHERE account_id = ${accountId} ORDER BY created_at, id`;
      return rows.map(toCredential);
    },
    async recordUse(credentialId, counter, at) {
      const [row] = await sql<CredentialRow[]>`UPDATE passkey_credentials
        SET counter = ${counter}, doc = (doc::jsonb || jsonb_build_object('last_used_at', ${at}::double precision, 'counter', ${counter}::bigint))::json
        WHERE credential_id = ${credentialId} AND (counter < ${counter} OR (counter = 0 AND ${counter}::bigint = 0))
        RETURNING doc, counter::text`;
      return row ? toCredential(row) : null;
    },
    async deleteCredential(accountId, id, at) {
      const [row] = await sql<CredentialRow[]>`DELETE FROM passkey_credentials WHERE id = ${id} AND account_id = ${accountId}
        RETURNING doc, counter::text`;
      return row ? { ...toCredential(row), deleted_at: at } : null;
    },

    async putTicket(t) {
      await sql`INSERT INTO passkey_tickets (hash, kind, account_id, doc, challenge, used_at, expires_at)
        VALUES (${t.hash}, ${t.kind}, ${t.account_id}, ${json(t)}::text::json, ${t.challenge}, ${t.used_at}, ${t.expires_at})
        ON CONFLICT (hash) DO NOTHING`;
      return (await store.getTicket(t.hash)) ?? t;
    },
    async getTicket(hash) {
      const [row] = await sql<TicketRow[]>`SELECT doc, challenge, used_at FROM passkey_tickets WHERE hash = ${hash}`;
      return row ? toTicket(row) : null;
    },
    async setChallenge(hash, challenge, now) {
      const [row] = await sql<TicketRow[]>`UPDATE passkey_tickets SET challenge = ${challenge}
        WHERE hash = ${hash} AND used_at IS NULL AND expires_at > ${now} RETURNING doc, challenge, used_at`;
      return row ? toTicket(row) : null;
    },
    async takeChallenge(hash, now) {
      // The old value comes from the row the UPDATE locked, so two servers cannot both take it.
      const [row] = await sql<TicketRow[]>`UPDATE passkey_tickets t SET challenge = NULL
        FROM (SELECT hash, challenge FROM passkey_tickets WHERE hash = ${hash} FOR UPDATE) old
        WHERE t.hash = old.hash AND t.challenge IS NOT NULL AND t.used_at IS NULL AND t.expires_at > ${now}
        RETURNING t.doc, old.challenge, t.used_at`;
      return row ? toTicket(row) : null;
    },
    async useTicket(hash, now) {
      const [row] = await sql<TicketRow[]>`UPDATE passkey_tickets SET used_at = ${now}, challenge = NULL
        WHERE hash = ${hash} AND used_at IS NULL AND expires_at > ${now} RETURNING doc, challenge, used_at`;
      return row ? toTicket(row) : null;
    },
    async countOpenEnrollTickets(accountId, now) {
      const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM passkey_tickets
        WHERE account_id = ${accountId} AND kind = 'enroll' AND used_at IS NULL AND expires_at > ${now}`;
      return row?.n ?? 0;
    },
    async pruneTickets(before) {
      const r = await sql`DELETE FROM passkey_tickets WHERE expires_at < ${before}`;
      return r.count;
    },
    async close() {
      await end();
    },
  };
  // Every operation here is one statement; a lost connection fails it (no retry: most write).
  return mappingStoreErrors(store, { retryReads: false });
}
