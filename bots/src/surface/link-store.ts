// The bots' own state in PRESENCE_BOTS_DATA_DIR: who is linked (with their key sealed by
// the secret box, or, linked through the bot's surface token, the key id only), each user's
// last events id, the surface stream's cursor, and the confirmation cards on screen. Held in
// memory and kept in links.jsonl, a change log (link-log-file.ts): a change appends one line,
// so it costs the same with ten users or ten thousand; writes land in call order. One process
// owns a data directory at a time (a pid file, like the server's). The directory is private
// (0700, files 0600), made so at open even when it was not.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { loadOrCreateKeyFile, PRIVATE_DIR, takePidFile, tightenModes } from '@presence/core/files';
import { type CardIndex, createCardIndex, withMessages } from './card-index';
import type { MessageRef, SurfaceName } from './chat-port';
import type { LinkLogEntry, LinkTable } from './link-log';
import { openLinkLogFile } from './link-log-file';
import type { Log } from './logging';
import type { CardRecord, LinkRecord } from './records';
import { createSecretBox } from './secret-box';

export type { CardRecord, CardState, LinkRecord } from './records';

/** A change to a card; `messages` are added to its copies (never removed), so two writers cannot drop each other's. */
export type CardPatch = Partial<Pick<CardRecord, 'state' | 'messages' | 'outcome'>>;

export { LEGACY_LINKS_FILE, LINKS_FILE } from './link-log-file';
export const KEY_FILE = 'links.key';
const PID_FILE = 'bots.pid';
const CARD_RETENTION_MS = 7 * 24 * 3_600_000;
/** Retention is checked at most this often: a look over every card, spread over an hour's changes. */
const PRUNE_EVERY_MS = 3_600_000;

const cardId = (owner: string, confirmId: string) => `${owner}|${confirmId}`;
/** One process per data directory (core's pid file, like the server's). */
const takeLock = (dir: string) =>
  takePidFile(path.join(dir, PID_FILE), (pid) => `another presence-bots process (pid ${pid}) is using ${dir}`);

/**
 * The directory 0700 and every file in it 0600: files we write are created so, and this
 * tightens what is already there at start (a directory made by an earlier version, by hand or
 * by a copy, and any file left in it). Subdirectories and links are not ours to change.
 */
function makePrivateDir(dir: string) {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  return tightenModes(dir, { recursive: false });
}

/**
 * Takes the data directory for this process: makes it private (saying what it tightened),
 * locks it against another process, then reads the key of the secret box and the table.
 * When reading fails the lock is let go.
 */
async function takeDataDir(dir: string, log: Log | undefined, now: () => number) {
  for (const t of makePrivateDir(dir)) {
    log?.('warn', t.path === dir ? 'made the data directory private' : 'made a data file private', {
      path: t.path,
      was: `0${t.from.toString(8)}`,
      now: `0${t.to.toString(8)}`,
    });
  }
  const unlock = takeLock(dir);
  try {
    const box = createSecretBox(loadOrCreateKeyFile(path.join(dir, KEY_FILE)));
    return { unlock, box, file: await openLinkLogFile(dir, { log, now }) };
  } catch (e) {
    unlock();
    throw e;
  }
}

/**
 * The cards in the table, with what finds them: the card index (by message) and each owner's
 * cards (so unlinking a user touches their cards only). Every change answers its log entry.
 */
function createCards(table: LinkTable, shownIn: CardIndex) {
  const byOwner = new Map<string, Set<string>>();
  function set(id: string, next: CardRecord | undefined): LinkLogEntry {
    const prior = table.cards.get(id);
    shownIn.set(id, prior, next);
    const owner = (next ?? prior)?.owner;
    if (next) {
      table.cards.set(id, next);
      if (!byOwner.has(next.owner)) byOwner.set(next.owner, new Set());
      byOwner.get(next.owner)?.add(id);
    } else if (prior && owner !== undefined) {
      table.cards.delete(id);
      byOwner.get(owner)?.delete(id);
      if (byOwner.get(owner)?.size === 0) byOwner.delete(owner);
    }
    return { k: 'card', id, v: next ?? null };
  }
  for (const [id, c] of table.cards) {
    // An answer cut short by a stop or crash left its card "answering": offer its buttons again.
    if (c.state === 'answering') Object.assign(c, { state: 'open', outcome: null });
    set(id, c);
  }
  return {
    set,
    dropAllOf: (owner: string): LinkLogEntry[] => [...(byOwner.get(owner) ?? [])].map((id) => set(id, undefined)),
    /** Cards kept past retention, or whose owner is gone, dropped. */
    dropExpired(t: number): LinkLogEntry[] {
      const out: LinkLogEntry[] = [];
      for (const [id, c] of table.cards) {
        const ended = c.state === 'closed' ? c.updated_at : Date.parse(c.expires_at);
        if (!table.links.has(c.owner) || (Number.isFinite(ended) && t - ended > CARD_RETENTION_MS)) out.push(set(id, undefined));
      }
      return out;
    },
  };
}
export type LinkStore = Awaited<ReturnType<typeof openLinkStore>>;

export async function openLinkStore(dir: string, { now = Date.now, log }: { now?: () => number; log?: Log } = {}) {
  const { unlock, box, file } = await takeDataDir(dir, log, now);
  const { table } = file;
  const shownIn = createCardIndex();
  const cards = createCards(table, shownIn);
  let prunedAt = Number.NEGATIVE_INFINITY;
  /** Cards past retention, at most once an hour (the first change after an open looks). */
  function expired(): LinkLogEntry[] {
    const t = now();
    if (t - prunedAt < PRUNE_EVERY_MS) return [];
    prunedAt = t;
    return cards.dropExpired(t);
  }
  const linkEntry = (key: string): LinkLogEntry => ({ k: 'link', id: key, v: table.links.get(key) ?? null });

  const claimed = new Set<string>();
  /** Owner (`<surface>:<user id>`) by key id: the surface stream names keys. */
  const byKeyId = new Map<string, string>();
  for (const [owner, l] of table.links) byKeyId.set(l.key_id, owner);

  return {
    dir,
    get: (key: string): LinkRecord | undefined => table.links.get(key),
    ownerOfKey: (keyId: string): string | undefined => byKeyId.get(keyId),
    list: (surface?: SurfaceName): LinkRecord[] => [...table.links.values()].filter((l) => !surface || l.surface === surface),
    /** The user's Presence key, opened from its sealed form. */
    keyOf(key: string): string {
      const link = table.links.get(key);
      if (!link) throw new Error(`${key} is not linked`);
      if (link.sealed_key === undefined) throw new Error(`${key} is linked through the surface token: no key is kept`);
      return box.open(link.sealed_key, key);
    },
    /** `secret` null: linked through the surface token, the key id is all that is kept. */
    async link(key: string, record: Omit<LinkRecord, 'sealed_key'>, secret: string | null) {
      const prior = table.links.get(key);
      if (prior) byKeyId.delete(prior.key_id);
      table.links.set(key, secret === null ? { ...record } : { ...record, sealed_key: box.seal(secret, key) });
      byKeyId.set(record.key_id, key);
      // A secret replaced by another (or by none) is one to scrub from the log's earlier lines.
      if (prior?.sealed_key !== undefined) file.scrubSoon();
      await file.write([linkEntry(key)]);
    },
    /** The key was moved over to the surface token: its secret is forgotten (off the disk within a second). */
    async dropSecret(key: string) {
      const link = table.links.get(key);
      if (!link || link.sealed_key === undefined) return;
      delete link.sealed_key;
      file.scrubSoon();
      await file.write([linkEntry(key)]);
    },
    surfaceCursor: (): number | undefined => table.surfaceCursor,
    async setSurfaceCursor(id: number) {
      if (table.surfaceCursor !== undefined && table.surfaceCursor >= id) return;
      table.surfaceCursor = id;
      await file.write([{ k: 'cursor', v: id }]);
    },
    /**
     * The server's history went back (it was restored from a backup): the surface stream
     * resumes at `id`, below the cursor, and the last event id of every user it feeds is
     * forgotten, as the server numbers their events from lower again. A line per such user,
     * once per restore. Users fed by their own key (a sealed key) keep theirs: their own
     * stream says when it went back (rewindLastEventId).
     */
    async rewindSurface(id: number) {
      table.surfaceCursor = id;
      const entries: LinkLogEntry[] = [{ k: 'cursor', v: id }];
      for (const [key, link] of table.links) {
        if (link.last_event_id === null || link.sealed_key !== undefined) continue;
        link.last_event_id = null;
        entries.push(linkEntry(key));
      }
      await file.write(entries);
    },
    /** Forgets the user, their key and their cards (off the disk within a second). */
    async unlink(key: string): Promise<LinkRecord | undefined> {
      const link = table.links.get(key);
      if (!link) return undefined;
      table.links.delete(key);
      if (byKeyId.get(link.key_id) === key) byKeyId.delete(link.key_id);
      file.scrubSoon();
      await file.write([linkEntry(key), ...cards.dropAllOf(key)]);
      return link;
    },
    async setHomeChat(key: string, chatId: string) {
      const link = table.links.get(key);
      if (!link || link.home_chat === chatId) return;
      link.home_chat = chatId;
      await file.write([linkEntry(key)]);
    },
    async setLastEventId(key: string, id: number) {
      const link = table.links.get(key);
      if (!link || (link.last_event_id !== null && link.last_event_id >= id)) return;
      link.last_event_id = id;
      await file.write([linkEntry(key)]);
    },
    /** The user's events went back (a server restored from a backup): they resume after `id`, below the one recorded. */
    async rewindLastEventId(key: string, id: number) {
      const link = table.links.get(key);
      if (!link || link.last_event_id === null || link.last_event_id <= id) return;
      link.last_event_id = id;
      await file.write([linkEntry(key)]);
    },

    card: (owner: string, confirmId: string): CardRecord | undefined => table.cards.get(cardId(owner, confirmId)),
    /** The card shown in this message, whoever owns it: one lookup, however many cards there are. */
    cardAt(ref: MessageRef): CardRecord | undefined {
      const id = shownIn.at(ref);
      return id === undefined ? undefined : table.cards.get(id);
    },
    async putCard(card: Omit<CardRecord, 'updated_at'>) {
      const id = cardId(card.owner, card.confirm_id);
      // A card of a user no longer linked is not kept (the user's cards went with the link).
      const put = table.links.has(card.owner) ? { ...card, updated_at: now() } : undefined;
      if (!put && !table.cards.has(id)) return;
      await file.write([cards.set(id, put), ...expired()]);
    },
    /** Answers the card as it stands after the change (this process's copy: later changes show in it). */
    async updateCard(owner: string, confirmId: string, patch: CardPatch): Promise<CardRecord | undefined> {
      const id = cardId(owner, confirmId);
      const card = table.cards.get(id);
      if (!card) return undefined;
      Object.assign(card, patch, { messages: withMessages(card.messages, patch.messages), updated_at: now() });
      await file.write([cards.set(id, card)]);
      return card;
    },

    /** One process owns the file table: an update id is claimed in memory (the last 10,000 kept). */
    async claimUpdate(platform: string, updateId: number): Promise<boolean> {
      const id = `${platform}:${updateId}`;
      if (claimed.has(id)) return false;
      claimed.add(id);
      if (claimed.size > 10_000) claimed.delete(claimed.values().next().value as string);
      return true;
    },

    async close() {
      await file.close();
      unlock();
    },
  };
}
