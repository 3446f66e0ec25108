// The bots' table in PostgreSQL (PRESENCE_BOTS_DATABASE_URL), for several bot processes of one
// bot: the same store as link-store.ts (who is linked, each user's last event id, the surface
// stream's cursor, the cards on screen), in tables of its own (bots_*; the database may be the
// server's). Every process keeps the rows in memory, so reads stay synchronous, and hears every
// other process's writes through LISTEN/NOTIFY (`presence_bots`, "link:<owner>",
// "card:<id>", "cursor", "rewind"): a card sent by one process is found by the one that receives the
// press. Writes are single statements that touch only what they change (a user's last event
// id never undoes another process's home chat). One process at a time reads the surface
// stream: `leadStream` takes a session advisory lock, released when its connection ends (a
// process killed with -9 included), so a standby takes over within its retry period, reading
// the table afresh as it does (what the last reader recorded, not what its notices said).
// Linking needs the surface token (no key secret is kept here, so none is sealed). Every
// row read is parsed with its schema (records.ts): one that does not fit is logged and left
// out of memory (the row itself stays, for an operator to mend).
import postgres from 'postgres';
import { createCardIndex, withMessages } from './card-index';
import type { CardPatch, LinkStore } from './link-store';
import type { Log } from './logging';
import { CardRecord, LinkRecord } from './records';
import { createRowCheck } from './set-aside';

const CHANNEL = 'presence_bots';
/** `pg_try_advisory_lock` key of the surface stream's consumer: "botsfeed" in ASCII. */
const STREAM_LOCK = 0x626f747366656564n;
const CARD_RETENTION_MS = 7 * 24 * 3_600_000;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS bots_links (owner text PRIMARY KEY, key_id text NOT NULL, doc jsonb NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS bots_cards (id text PRIMARY KEY, owner text NOT NULL, updated_at double precision NOT NULL, doc jsonb NOT NULL)`,
  // The retention DELETE run at each card put, and an unlink's, find their rows without reading every user's cards.
  `CREATE INDEX IF NOT EXISTS bots_cards_updated_at ON bots_cards (updated_at)`,
  `CREATE INDEX IF NOT EXISTS bots_cards_owner ON bots_cards (owner)`,
  `CREATE TABLE IF NOT EXISTS bots_state (name text PRIMARY KEY, value bigint NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS bots_pace (key text PRIMARY KEY, next_at double precision NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS bots_updates (platform text NOT NULL, update_id bigint NOT NULL, claimed_at double precision NOT NULL, PRIMARY KEY (platform, update_id))`,
];

const cardId = (owner: string, confirmId: string) => `${owner}|${confirmId}`;

export type PgLinkStore = LinkStore & {
  /** The card as the table holds it now (another process may have put or changed it moments ago, its notice still on the way). */
  loadCard(owner: string, confirmId: string): Promise<CardRecord | undefined>;
  /** Tries to become the surface stream's one consumer; answers its release, or null while another process holds it. */
  leadStream(): Promise<(() => Promise<void>) | null>;
  /** Claims a platform update id for this process; false when another process (or a retry) had it. */
  claimUpdate(platform: string, updateId: number): Promise<boolean>;
  /** The next send slot of `key` (spaced `gapMs`) across every process of the bot; answers its time. */
  paceSlot(key: string, gapMs: number, now: number): Promise<number>;
};

/**
 * Hears the other processes' changes. The table is read whole each time the notices start to
 * flow (so no change falls between the read and the first notice): once at the start, which
 * this waits for and fails with, and again after each reconnect (notices sent meanwhile were lost).
 */
async function listenForChanges(
  sql: postgres.Sql,
  { reload, loadAll, log }: { reload(what: string): Promise<void>; loadAll(): Promise<void>; log?: Log },
) {
  let started: Promise<void> | undefined;
  const listening = await sql.listen(
    CHANNEL,
    (payload) =>
      void reload(payload).catch((e: unknown) => log?.('warn', 'could not read a bots row another process changed', { error: String(e) })),
    () => {
      const loading = loadAll();
      if (started === undefined) {
        started = loading;
        loading.catch(() => undefined); // awaited below; this only keeps a fast failure from counting as unhandled
      } else void loading.catch((e: unknown) => log?.('warn', 'could not reload the bots table', { error: String(e) }));
    },
  );
  await started;
  return listening;
}

/** This process's copy of the rows, with what finds them (links by key id, cards by message); each row parsed as it is put. */
function createMirror(log: Log | undefined) {
  const links = new Map<string, LinkRecord>();
  const byKeyId = new Map<string, string>();
  const cards = new Map<string, CardRecord>();
  /** Which card each message shows: a press finds its card in one lookup. */
  const shownIn = createCardIndex();
  const fits = createRowCheck(log);
  /** Answers the link as kept in memory (null: none, or a row that does not fit). */
  const putLinkLocal = (owner: string, row: unknown): LinkRecord | null => {
    const doc = fits(LinkRecord, row, `link ${owner}`);
    const prior = links.get(owner);
    if (prior && byKeyId.get(prior.key_id) === owner) byKeyId.delete(prior.key_id);
    if (doc) {
      links.set(owner, doc);
      byKeyId.set(doc.key_id, owner);
    } else links.delete(owner);
    return doc;
  };
  /** Answers the card as kept in memory (null: none, or a row that does not fit). */
  const putCardLocal = (id: string, row: unknown): CardRecord | null => {
    const doc = fits(CardRecord, row, `card ${id}`);
    shownIn.set(id, cards.get(id), doc ?? undefined);
    if (doc) cards.set(id, doc);
    else cards.delete(id);
    return doc;
  };
  function clear() {
    links.clear();
    byKeyId.clear();
    cards.clear();
    shownIn.clear();
  }
  return { links, byKeyId, cards, shownIn, fits, putLinkLocal, putCardLocal, clear };
}

export async function openPgLinkStore(url: string, { now = Date.now, log }: { now?: () => number; log?: Log } = {}): Promise<PgLinkStore> {
  const sql = postgres(url, { max: 4, onnotice: () => undefined, connect_timeout: 10 });
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${STREAM_LOCK.toString()}::bigint + 1)`;
    for (const statement of SCHEMA) await tx.unsafe(statement);
  });
  const { links, byKeyId, cards, shownIn, fits, putLinkLocal, putCardLocal, clear } = createMirror(log);
  let cursor: number | undefined;

  /**
   * Rewinds made by this process: a read begun before one may hold what it undid (a user's old
   * last event id), so it is dropped; the rewind's own notice reads the whole table again.
   */
  let rewinds = 0;
  async function fresh<T>(query: Promise<T>): Promise<T | null> {
    const at = rewinds;
    const rows = await query;
    return at === rewinds ? rows : null;
  }
  const readCursor = () => sql<{ value: string }[]>`SELECT value::text FROM bots_state WHERE name = 'surface_cursor'`;
  async function reload(what: string) {
    if (what === 'cursor') {
      const [row] = (await fresh(readCursor())) ?? [];
      if (row) cursor = Math.max(cursor ?? 0, Number(row.value));
    } else if (what === 'rewind') await loadAll();
    else if (what.startsWith('link:')) {
      const owner = what.slice(5);
      const rows = await fresh(sql<{ doc: unknown }[]>`SELECT doc FROM bots_links WHERE owner = ${owner}`);
      if (rows) putLinkLocal(owner, rows[0]?.doc ?? null);
    } else if (what.startsWith('card:')) {
      const id = what.slice(5);
      const [row] = await sql<{ doc: unknown }[]>`SELECT doc FROM bots_cards WHERE id = ${id}`;
      putCardLocal(id, row?.doc ?? null);
    }
  }
  /** The whole table as it stands, replacing what the notices told (rows deleted meanwhile go too), the cursor as the table has it. */
  async function loadAll() {
    const at = rewinds;
    const linkRows = await sql<{ owner: string; doc: unknown }[]>`SELECT owner, doc FROM bots_links`;
    const cardRows = await sql<{ id: string; doc: unknown }[]>`SELECT id, doc FROM bots_cards`;
    const [state] = await readCursor();
    if (at !== rewinds) return;
    clear();
    for (const r of linkRows) putLinkLocal(r.owner, r.doc);
    for (const r of cardRows) putCardLocal(r.id, r.doc);
    if (state) cursor = Number(state.value);
  }
  const listening = await listenForChanges(sql, { reload, loadAll, log });

  const notify = (what: string) => sql`SELECT pg_notify(${CHANNEL}, ${what})`;
  async function writeLink(owner: string, statement: Promise<{ doc: unknown }[]>) {
    const [row] = await statement;
    if (row) putLinkLocal(owner, row.doc);
    await notify(`link:${owner}`);
  }
  /**
   * One statement that merges the change into the row as it stands, messages added to the ones
   * there: two processes changing one card at once (a press on one, a late send on the other)
   * both keep their part, and each is answered the card with the other's part if it came first.
   */
  async function updateCardRow(id: string, { messages = [], ...rest }: CardPatch): Promise<CardRecord | undefined> {
    const t = now();
    // Seen here at once, so a check-and-set in this process (a double press) acts once.
    const known = cards.get(id);
    if (known) putCardLocal(id, { ...known, ...rest, messages: withMessages(known.messages, messages), updated_at: t });
    const [row] = await sql<{ doc: unknown }[]>`UPDATE bots_cards SET updated_at = ${t},
      doc = doc || ${sql.json(rest as never)} || jsonb_build_object('updated_at', ${t}::float8, 'messages', (
        SELECT COALESCE(jsonb_agg(m ORDER BY o), '[]'::jsonb) FROM (
          SELECT DISTINCT ON (m) m, o FROM jsonb_array_elements(COALESCE(doc->'messages', '[]'::jsonb) || ${sql.json(messages as never)})
            WITH ORDINALITY AS e(m, o) ORDER BY m, o) AS first_copies))
      WHERE id = ${id} RETURNING doc`;
    if (!row) return undefined;
    const card = putCardLocal(id, row.doc);
    await notify(`card:${id}`);
    return card ?? undefined;
  }
  let lockConnection: postgres.ReservedSql | null = null;

  return {
    dir: url,
    get: (key) => links.get(key),
    ownerOfKey: (keyId) => byKeyId.get(keyId),
    list: (surface) => [...links.values()].filter((l) => !surface || l.surface === surface),
    keyOf(key) {
      throw new Error(`${key}: the bots' table in PostgreSQL keeps no keys; link through PRESENCE_SURFACE_TOKEN`);
    },
    async link(key, record, secret) {
      if (secret !== null) throw new Error("the bots' table in PostgreSQL keeps no keys: set PRESENCE_SURFACE_TOKEN");
      await writeLink(
        key,
        sql<{ doc: unknown }[]>`INSERT INTO bots_links (owner, key_id, doc) VALUES (${key}, ${record.key_id}, ${sql.json(record as never)})
          ON CONFLICT (owner) DO UPDATE SET key_id = EXCLUDED.key_id, doc = EXCLUDED.doc RETURNING doc`,
      );
    },
    async dropSecret() {},
    surfaceCursor: () => cursor,
    async setSurfaceCursor(id) {
      if (cursor !== undefined && cursor >= id) return;
      cursor = id;
      await sql`INSERT INTO bots_state (name, value) VALUES ('surface_cursor', ${id})
        ON CONFLICT (name) DO UPDATE SET value = GREATEST(bots_state.value, EXCLUDED.value)`;
      await notify('cursor');
    },
    async rewindSurface(id) {
      // Seen here at once (the stream's next frames check each user's last event id), then kept
      // in one transaction, then told to the other processes, which read the table afresh.
      rewinds += 1;
      cursor = id;
      for (const link of links.values()) link.last_event_id = null;
      await sql.begin(async (tx) => {
        await tx`INSERT INTO bots_state (name, value) VALUES ('surface_cursor', ${id})
          ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`;
        await tx`UPDATE bots_links SET doc = jsonb_set(doc, '{last_event_id}', 'null'::jsonb) WHERE doc->'last_event_id' <> 'null'::jsonb`;
      });
      await notify('rewind');
    },
    async unlink(key) {
      const link = links.get(key);
      const [row] = await sql<{ doc: unknown }[]>`DELETE FROM bots_links WHERE owner = ${key} RETURNING doc`;
      // The user's cards by the rows deleted (not a scan of every card here), each announced so
      // that other processes forget them too.
      const gone = await sql<{ id: string }[]>`DELETE FROM bots_cards WHERE owner = ${key} RETURNING id`;
      putLinkLocal(key, null);
      for (const r of gone) putCardLocal(r.id, null);
      await notify(`link:${key}`);
      for (const r of gone) await notify(`card:${r.id}`);
      return fits(LinkRecord, row?.doc, `link ${key}`) ?? link;
    },
    async setHomeChat(key, chatId) {
      const link = links.get(key);
      if (!link || link.home_chat === chatId) return;
      await writeLink(
        key,
        sql<{ doc: unknown }[]>`UPDATE bots_links SET doc = jsonb_set(doc, '{home_chat}', to_jsonb(${chatId}::text))
          WHERE owner = ${key} RETURNING doc`,
      );
    },
    async setLastEventId(key, id) {
      const link = links.get(key);
      if (!link || (link.last_event_id !== null && link.last_event_id >= id)) return;
      await writeLink(
        key,
        sql<{ doc: unknown }[]>`UPDATE bots_links SET doc = jsonb_set(doc, '{last_event_id}', to_jsonb(${id}::bigint))
          WHERE owner = ${key} AND COALESCE((doc->>'last_event_id')::bigint, -1) < ${id} RETURNING doc`,
      );
    },

    async rewindLastEventId(key, id) {
      const link = links.get(key);
      if (!link || link.last_event_id === null || link.last_event_id <= id) return;
      await writeLink(
        key,
        sql<{ doc: unknown }[]>`UPDATE bots_links SET doc = jsonb_set(doc, '{last_event_id}', to_jsonb(${id}::bigint))
          WHERE owner = ${key} RETURNING doc`,
      );
    },

    card: (owner, confirmId) => cards.get(cardId(owner, confirmId)),
    async loadCard(owner, confirmId) {
      const id = cardId(owner, confirmId);
      const [row] = await sql<{ doc: unknown }[]>`SELECT doc FROM bots_cards WHERE id = ${id}`;
      return putCardLocal(id, row?.doc) ?? undefined;
    },
    cardAt(ref) {
      const id = shownIn.at(ref);
      return id === undefined ? undefined : cards.get(id);
    },
    async putCard(card) {
      const id = cardId(card.owner, card.confirm_id);
      const doc: CardRecord = { ...card, updated_at: now() };
      await sql`INSERT INTO bots_cards (id, owner, updated_at, doc) VALUES (${id}, ${card.owner}, ${doc.updated_at}, ${sql.json(doc as never)})
        ON CONFLICT (id) DO UPDATE SET updated_at = EXCLUDED.updated_at, doc = EXCLUDED.doc`;
      putCardLocal(id, doc);
      const old = await sql<{ id: string }[]>`DELETE FROM bots_cards WHERE updated_at < ${now() - CARD_RETENTION_MS} RETURNING id`;
      for (const r of old) putCardLocal(r.id, null);
      for (const what of [id, ...old.map((r) => r.id)]) await notify(`card:${what}`);
    },
    updateCard: (owner, confirmId, patch) => updateCardRow(cardId(owner, confirmId), patch),

    async leadStream() {
      const conn = await sql.reserve();
      const [row] = await conn<{ ok: boolean }[]>`SELECT pg_try_advisory_lock(${STREAM_LOCK.toString()}::bigint) AS ok`;
      if (!row?.ok) {
        conn.release();
        return null;
      }
      lockConnection = conn;
      const release = async () => {
        await conn`SELECT pg_advisory_unlock(${STREAM_LOCK.toString()}::bigint)`.catch(() => undefined);
        conn.release();
        if (lockConnection === conn) lockConnection = null;
      };
      // What the last reader recorded, read from the table rather than from its notices: a
      // reader killed between a row's write and its notice (or a notice not yet read here)
      // would otherwise have its last delivery, or its card, sent again.
      await loadAll().catch(async (e: unknown) => {
        await release();
        throw e;
      });
      return release;
    },
    async claimUpdate(platform, updateId) {
      const r = await sql`INSERT INTO bots_updates (platform, update_id, claimed_at) VALUES (${platform}, ${updateId}, ${now()})
        ON CONFLICT DO NOTHING`;
      if (updateId % 1000 === 0) void sql`DELETE FROM bots_updates WHERE claimed_at < ${now() - 24 * 3_600_000}`.catch(() => undefined);
      return r.count === 1;
    },

    async paceSlot(key, gapMs, t) {
      // One statement under the row's lock: concurrent senders anywhere get distinct slots.
      const [row] = await sql<{ at: number }[]>`INSERT INTO bots_pace AS p (key, next_at) VALUES (${key}, ${t + gapMs})
        ON CONFLICT (key) DO UPDATE SET next_at = GREATEST(p.next_at, ${t}) + ${gapMs} RETURNING next_at - ${gapMs} AS at`;
      if (Math.random() < 0.001) void sql`DELETE FROM bots_pace WHERE next_at < ${t - 60_000}`.catch(() => undefined);
      return Number(row?.at ?? t);
    },

    async close() {
      await listening.unlisten().catch(() => undefined);
      lockConnection?.release();
      await sql.end({ timeout: 5 });
    },
  };
}
