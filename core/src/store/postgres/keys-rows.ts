// API keys on PostgreSQL (table api_keys): the record whole beside its secrets' hashes (an
// array column, so a lookup by hash is one indexed read); an update announced on
// `presence_keys` at commit, so every server's key cache drops the key.
import type { TransactionSql } from 'postgres';
import { KeyRecord } from '../documents';
import type { KeysPort } from '../keys-port';
import { KEYS_CHANNEL } from './channels';
import { type Doc, insertNew, json, lockedUpdate } from './records';
import type { Runner } from './unit-of-work';

export function keysRows(run: Runner): KeysPort {
  const { sql, begin } = run;
  return {
    async insertKey(key) {
      await insertNew(
        sql`INSERT INTO api_keys (id, account_id, secret_hashes, doc)
        VALUES (${key.id}, ${key.account_id}, ${key.secrets.map((s) => s.hash)}::text[], ${json(key)}::text::json)`,
        `key ${key.id}`,
      );
    },
    async getKey(id) {
      const [row] = await sql<Doc[]>`SELECT doc FROM api_keys WHERE id = ${id}`;
      return row ? KeyRecord.parse(row.doc) : null;
    },
    async findKeyBySecretHash(hash) {
      const [row] = await sql<Doc[]>`SELECT doc FROM api_keys WHERE secret_hashes @> ARRAY[${hash}]::text[] LIMIT 1`;
      return row ? KeyRecord.parse(row.doc) : null;
    },
    async listKeys(accountId) {
      const rows = await sql<Doc[]>`SELECT doc FROM api_keys WHERE account_id = ${accountId} ORDER BY seq`;
      return rows.map((r) => KeyRecord.parse(r.doc));
    },
    async updateKey(id, update) {
      const read = (tx: TransactionSql) => tx<Doc[]>`SELECT doc FROM api_keys WHERE id = ${id} FOR UPDATE`;
      const write = (tx: TransactionSql, next: KeyRecord) =>
        tx`UPDATE api_keys SET doc = ${json(next)}::text::json, secret_hashes = ${next.secrets.map((s) => s.hash)}::text[]
        WHERE id = ${id} RETURNING pg_notify(${KEYS_CHANNEL}, id)`;
      return lockedUpdate(begin, { read, parse: (doc) => KeyRecord.parse(doc), write }, update);
    },
  };
}
