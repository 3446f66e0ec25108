// The surfaces port on PostgreSQL (tables of migrations/0010_surfaces.sql). Sequencing takes
// one advisory transaction lock, so feed positions commit in the order they are taken and
// every server reads the same order; only linked accounts' appends take it (the surface
// service asks `isLinked`, one indexed read, and remembers the answer). Each sequencing NOTIFYs the events channel
// with "surface-feed:<seq>", so streams on every server read the new entries at once (no
// account is named "surface-feed": account ids are acc_…). A new link NOTIFYs the links
// channel with its account, for servers that remember which accounts are linked.
import type postgres from 'postgres';
import type { StoredEvent } from '../documents';
import { FeedRecord, type SurfaceLinkRecord, SurfaceRecord } from '../surface-records';
import { SURFACE_FEED_NOTICE, type SurfaceStorePort } from '../surface-store-port';
import { EVENTS_CHANNEL, LINKS_CHANNEL, SURFACES_CHANNEL } from './channels';
import { type DatabaseSource, useDatabase } from './database';
import { mappingStoreErrors } from './database-error';

/** `pg_advisory_xact_lock` key of feed sequencing: "surfaces" in ASCII. */
const FEED_LOCK = 0x7375726661636573n;

type LinkRow = Omit<SurfaceLinkRecord, 'from_event' | 'from_seq'> & { from_event: string; from_seq: string };
const toLink = (r: LinkRow): SurfaceLinkRecord => ({
  key_id: r.key_id,
  surface_id: r.surface_id,
  account_id: r.account_id,
  surface_user: r.surface_user,
  created_at: r.created_at,
  from_event: Number(r.from_event),
  from_seq: Number(r.from_seq),
  revoked_at: r.revoked_at,
});

/** On the server's one pool (`{ sql }`), or, given a URL (the CLI, tests), a small pool of its own. */
export async function createPostgresSurfaceStore({ max = 3, ...source }: DatabaseSource & { max?: number }): Promise<SurfaceStorePort> {
  const { sql, end } = useDatabase(source, max);
  type Tx = postgres.TransactionSql;

  /** Inserts feed entries for the marked accounts' events after their marks; answers how many. */
  async function sequence(tx: Tx, accountId: string | null): Promise<number> {
    await tx`SELECT pg_advisory_xact_lock(${FEED_LOCK.toString()}::bigint)`;
    const only = accountId === null ? tx`` : tx`AND m.account_id = ${accountId}`;
    const [row] = await tx<{ n: number; last: string | null }[]>`
      WITH ins AS (
        INSERT INTO surface_feed (account_id, kind, event_id, at)
        SELECT e.account_id, 'event', e.id, e.at FROM surface_marks m
        JOIN events e ON e.account_id = m.account_id AND e.id > m.through
        WHERE true ${only}
        ORDER BY e.account_id, e.id
        RETURNING seq, account_id, event_id
      ), marks AS (
        UPDATE surface_marks m SET through = x.last
        FROM (SELECT account_id, max(event_id) AS last FROM ins GROUP BY account_id) x
        WHERE m.account_id = x.account_id
      )
      SELECT count(*)::int AS n, max(seq)::text AS last FROM ins`;
    const n = row?.n ?? 0;
    if (n > 0) await tx`SELECT pg_notify(${EVENTS_CHANNEL}, ${`${SURFACE_FEED_NOTICE}:${row?.last}`})`;
    return n;
  }

  const store: SurfaceStorePort = {
    async insertSurface(s) {
      await sql`INSERT INTO surfaces (id, hash, revoked_at, doc) VALUES (${s.id}, ${s.hash}, ${s.revoked_at}, ${JSON.stringify(s)}::text::json)`;
    },
    async listSurfaces() {
      const rows = await sql<{ doc: unknown }[]>`SELECT doc FROM surfaces ORDER BY doc->>'created_at', id`;
      return rows.map((r) => SurfaceRecord.parse(r.doc));
    },
    async findSurfaceByHash(hash) {
      const [row] = await sql<{ doc: unknown }[]>`SELECT doc FROM surfaces WHERE hash = ${hash}`;
      return row ? SurfaceRecord.parse(row.doc) : null;
    },
    async revokeSurface(id, at) {
      return sql.begin(async (tx) => {
        const [row] = await tx<{ doc: unknown }[]>`SELECT doc FROM surfaces WHERE id = ${id} FOR UPDATE`;
        if (!row) return null;
        const s = SurfaceRecord.parse(row.doc);
        if (s.revoked_at !== null) return s;
        const next = { ...s, revoked_at: at };
        await tx`UPDATE surfaces SET revoked_at = ${at}, doc = ${JSON.stringify(next)}::text::json WHERE id = ${id}`;
        // Sent at commit: every server closes the token's streams at once (cluster/postgres/cluster.ts).
        await tx`SELECT pg_notify(${SURFACES_CHANNEL}, ${id})`;
        return next;
      });
    },

    async insertSurfaceLink(link) {
      return sql.begin(async (tx) => {
        // Under the feed's lock: no position is taken between reading the head and linking.
        await tx`SELECT pg_advisory_xact_lock(${FEED_LOCK.toString()}::bigint)`;
        const [head] = await tx<{ seq: string }[]>`SELECT COALESCE(max(seq), 0)::text AS seq FROM surface_feed`;
        const stored = { ...link, from_seq: Number(head?.seq ?? 0) };
        await tx`INSERT INTO surface_links (key_id, surface_id, account_id, surface_user, created_at, from_event, from_seq, revoked_at)
          VALUES (${link.key_id}, ${link.surface_id}, ${link.account_id}, ${link.surface_user}, ${link.created_at},
            ${link.from_event}, ${stored.from_seq}, ${link.revoked_at})`;
        await tx`INSERT INTO surface_marks (account_id, through) VALUES (${link.account_id}, ${link.from_event})
          ON CONFLICT (account_id) DO NOTHING`;
        // Every server that remembers the account as unlinked forgets it at this commit.
        await tx`SELECT pg_notify(${LINKS_CHANNEL}, ${link.account_id})`;
        return stored;
      });
    },
    async getSurfaceLink(keyId) {
      const [row] = await sql<LinkRow[]>`SELECT * FROM surface_links WHERE key_id = ${keyId}`;
      return row ? toLink(row) : null;
    },
    async surfaceLinksOf(surfaceId, accountIds) {
      if (accountIds.length === 0) return [];
      const rows = await sql<LinkRow[]>`SELECT * FROM surface_links
        WHERE surface_id = ${surfaceId} AND account_id = ANY(${[...accountIds]}::text[])`;
      return rows.map(toLink);
    },
    async countSurfaceLinks(surfaceId) {
      const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM surface_links
        WHERE surface_id = ${surfaceId} AND revoked_at IS NULL`;
      return row?.n ?? 0;
    },
    async revokeSurfaceLink(keyId, at) {
      return sql.begin(async (tx) => {
        const [row] = await tx<LinkRow[]>`UPDATE surface_links SET revoked_at = ${at}
          WHERE key_id = ${keyId} AND revoked_at IS NULL RETURNING *`;
        if (!row) return null;
        // The account's events so far keep their places before the notice.
        await sequence(tx, row.account_id);
        const [f] = await tx<{ seq: string }[]>`INSERT INTO surface_feed (account_id, kind, key_id, surface_id, at)
          VALUES (${row.account_id}, 'link_revoked', ${keyId}, ${row.surface_id}, ${at}) RETURNING seq::text`;
        await tx`SELECT pg_notify(${EVENTS_CHANNEL}, ${`${SURFACE_FEED_NOTICE}:${f?.seq}`})`;
        // No live link left: the account's events need no more positions.
        await tx`DELETE FROM surface_marks WHERE account_id = ${row.account_id}
          AND NOT EXISTS (SELECT 1 FROM surface_links WHERE account_id = ${row.account_id} AND revoked_at IS NULL)`;
        return toLink(row);
      });
    },

    async isLinked(accountId) {
      const [marked] = await sql`SELECT 1 FROM surface_marks WHERE account_id = ${accountId}`;
      return marked !== undefined;
    },
    async sequenceFeed(accountId) {
      // The surface service asks isLinked first (remembered across appends on a shared
      // store): most appends are of accounts no surface links, and they take no lock.
      return sql.begin((tx) => sequence(tx, accountId));
    },
    async sequenceAllFeeds() {
      return sql.begin((tx) => sequence(tx, null));
    },
    async feedAfter(surfaceId, after, limit) {
      // One snapshot for the entries and the head: positions commit in order, so every
      // position up to the head is visible in it, and none the entries missed lies below it.
      const [rows, head] = await sql.begin('isolation level repeatable read read only', async (tx) => [
        await tx<Record<string, unknown>[]>`
          SELECT f.seq::text AS seq, f.account_id, f.kind, f.event_id::text AS event_id, f.key_id, f.surface_id, f.at,
            e.type AS e_type, e.data AS e_data, e.at AS e_at
          FROM surface_feed f
          LEFT JOIN events e ON f.kind = 'event' AND e.account_id = f.account_id AND e.id = f.event_id
          WHERE f.seq > ${after} AND (
            f.surface_id = ${surfaceId}
            OR (f.surface_id IS NULL AND EXISTS (SELECT 1 FROM surface_links l WHERE l.surface_id = ${surfaceId}
              AND l.account_id = f.account_id AND l.revoked_at IS NULL AND l.from_seq < f.seq)))
          ORDER BY f.seq LIMIT ${limit}`,
        Number((await tx<{ head: string }[]>`SELECT COALESCE(max(seq), 0)::text AS head FROM surface_feed`)[0]?.head ?? 0),
      ]);
      const entries = rows.map((r) => {
        const rec = FeedRecord.parse({
          seq: Number(r.seq),
          account_id: r.account_id,
          kind: r.kind,
          event_id: r.event_id === null ? null : Number(r.event_id),
          key_id: r.key_id,
          surface_id: r.surface_id,
          at: r.at,
        });
        const event: StoredEvent | null =
          r.e_type == null
            ? null
            : { id: rec.event_id as number, type: String(r.e_type), data: r.e_data as Record<string, unknown>, at: Number(r.e_at) };
        return { ...rec, event };
      });
      const last = entries.at(-1)?.seq ?? after;
      return { entries, through: entries.length === limit ? last : Math.max(last, head) };
    },
    async feedHead() {
      const [row] = await sql<{ head: string }[]>`SELECT COALESCE(max(seq), 0)::text AS head FROM surface_feed`;
      return Number(row?.head ?? 0);
    },
    async pruneFeed(olderThan) {
      const r = await sql`DELETE FROM surface_feed WHERE at < ${olderThan} AND seq < (SELECT max(seq) FROM surface_feed)`;
      return r.count;
    },
    async close() {
      await end();
    },
  };

  return mappingStoreErrors(store);
}
