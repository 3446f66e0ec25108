// The bots' own state in PRESENCE_BOTS_DATA_DIR: who is linked (with their key sealed by
// the secret box, or, linked through the bot's surface token, the key id only), each user's
// last events id, the surface stream's cursor, and the confirmation cards on screen. One
// JSON document, rewritten atomically (0600) after each change; writes are serialised and
// coalesced. One process owns a data directory at a time (a pid file, like the server's).
// The directory is private (0700, files 0600), made so at open even when it was not.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadOrCreateKeyFile, PRIVATE_DIR, takePidFile, tightenModes, writeFileAtomic } from '@presence/core/files';
import { createCardIndex, withMessages } from './card-index';
import type { MessageRef, SurfaceName } from './chat-port';
import type { Log } from './logging';
import type { Outcome } from './render';
import { createSecretBox, type SecretBox } from './secret-box';

export type LinkRecord = {
  surface: SurfaceName;
  user_id: string;
  name: string;
  account: string;
  key_id: string;
  key_name: string;
  scopes: string[];
  /**
   * The key, sealed; read it with `keyOf`. Absent when the link was made (or moved over)
   * through the bot's surface token: the bot then acts for `key_id` and keeps no secret.
   */
  sealed_key?: string;
  /** Where unprompted messages go: the user's private chat, once known. */
  home_chat: string | null;
  linked_at: string;
  /** The last events id handled for this user: the stream resumes after it. */
  last_event_id: number | null;
};

export type CardState = 'open' | 'answering' | 'closed';

export type CardRecord = {
  /** The user whose key the card answers with (`<surface>:<user id>`); only they may press. */
  owner: string;
  confirm_id: string;
  summary: string;
  amount: string;
  value_usd: string | null;
  expires_at: string;
  timeout_s: number | null;
  /** Set on a hold over passkey_over: Approve is a link to this page, not a callback. */
  approve_url?: string | null;
  messages: MessageRef[];
  state: CardState;
  /**
   * What the card shows once it is no longer open (the answer under way while `answering`, the
   * result once `closed`), so whichever process sends a copy late can paint it. Null when
   * open; absent on records kept before it was (painted then as plainly settled).
   */
  outcome?: Outcome | null;
  updated_at: number;
};

/** A change to a card; `messages` are added to its copies (never removed), so two writers cannot drop each other's. */
export type CardPatch = Partial<Pick<CardRecord, 'state' | 'messages' | 'outcome'>>;

type Document = {
  version: 1;
  links: Record<string, LinkRecord>;
  cards: Record<string, CardRecord>;
  /** Where the surface stream (GET /v1/surface/events) resumes. */
  surface_cursor?: number;
};

export const LINKS_FILE = 'links.json';
export const KEY_FILE = 'links.key';
const PID_FILE = 'bots.pid';
const CARD_RETENTION_MS = 7 * 24 * 3_600_000;

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

function readDocument(file: string): Document {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, links: {}, cards: {} };
    throw e;
  }
  const doc = JSON.parse(text) as Partial<Document>;
  if (doc.version !== 1 || typeof doc.links !== 'object' || doc.links === null)
    throw new Error(`${file} is not a presence-bots link table`);
  return {
    version: 1,
    links: doc.links,
    cards: doc.cards ?? {},
    surface_cursor: typeof doc.surface_cursor === 'number' ? doc.surface_cursor : undefined,
  };
}

/**
 * Takes the data directory for this process: makes it private (saying what it tightened),
 * locks it against another process, then reads the key of the secret box and the document.
 * When reading fails the lock is let go.
 */
function takeDataDir(dir: string, log: Log | undefined): { unlock: () => void; box: SecretBox; doc: Document } {
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
    const doc = readDocument(path.join(dir, LINKS_FILE));
    return { unlock, box, doc };
  } catch (e) {
    unlock();
    throw e;
  }
}

export type LinkStore = Awaited<ReturnType<typeof openLinkStore>>;

export async function openLinkStore(dir: string, { now = Date.now, log }: { now?: () => number; log?: Log } = {}) {
  const { unlock, box, doc } = takeDataDir(dir, log);
  const file = path.join(dir, LINKS_FILE);
  const shownIn = createCardIndex();
  for (const [id, c] of Object.entries(doc.cards)) {
    // An answer cut short by a stop or crash left its card "answering": offer its buttons again.
    if (c.state === 'answering') Object.assign(c, { state: 'open', outcome: null });
    shownIn.set(id, undefined, c);
  }

  let tail: Promise<void> = Promise.resolve();
  let queued: Promise<void> | null = null;
  /** Writes the document as it is when the write starts; calls made before then share it. */
  function save(): Promise<void> {
    if (queued) return queued;
    const write = tail.then(() => {
      queued = null;
      return writeFileAtomic(file, `${JSON.stringify(doc, null, 1)}\n`);
    });
    queued = write;
    tail = write.catch(() => undefined);
    return write;
  }

  function prune() {
    const t = now();
    for (const [id, c] of Object.entries(doc.cards)) {
      const ended = c.state === 'closed' ? c.updated_at : Date.parse(c.expires_at);
      if (!doc.links[c.owner] || (Number.isFinite(ended) && t - ended > CARD_RETENTION_MS)) {
        delete doc.cards[id];
        shownIn.set(id, c, undefined);
      }
    }
  }

  const claimed = new Set<string>();
  /** Owner (`<surface>:<user id>`) by key id: the surface stream names keys. */
  const byKeyId = new Map<string, string>();
  for (const [owner, l] of Object.entries(doc.links)) byKeyId.set(l.key_id, owner);

  return {
    dir,
    get: (key: string): LinkRecord | undefined => doc.links[key],
    ownerOfKey: (keyId: string): string | undefined => byKeyId.get(keyId),
    list: (surface?: SurfaceName): LinkRecord[] => Object.values(doc.links).filter((l) => !surface || l.surface === surface),
    /** The user's Presence key, opened from its sealed form. */
    keyOf(key: string): string {
      const link = doc.links[key];
      if (!link) throw new Error(`${key} is not linked`);
      if (link.sealed_key === undefined) throw new Error(`${key} is linked through the surface token: no key is kept`);
      return box.open(link.sealed_key, key);
    },
    /** `secret` null: linked through the surface token, the key id is all that is kept. */
    async link(key: string, record: Omit<LinkRecord, 'sealed_key'>, secret: string | null) {
      const prior = doc.links[key];
      if (prior) byKeyId.delete(prior.key_id);
      doc.links[key] = secret === null ? { ...record } : { ...record, sealed_key: box.seal(secret, key) };
      byKeyId.set(record.key_id, key);
      await save();
    },
    /** The key was moved over to the surface token: its secret is forgotten. */
    async dropSecret(key: string) {
      const link = doc.links[key];
      if (!link || link.sealed_key === undefined) return;
      delete link.sealed_key;
      await save();
    },
    surfaceCursor: (): number | undefined => doc.surface_cursor,
    async setSurfaceCursor(id: number) {
      if (doc.surface_cursor !== undefined && doc.surface_cursor >= id) return;
      doc.surface_cursor = id;
      await save();
    },
    /** Forgets the user, their key and their cards. */
    async unlink(key: string): Promise<LinkRecord | undefined> {
      const link = doc.links[key];
      if (!link) return undefined;
      delete doc.links[key];
      if (byKeyId.get(link.key_id) === key) byKeyId.delete(link.key_id);
      prune();
      await save();
      return link;
    },
    async setHomeChat(key: string, chatId: string) {
      const link = doc.links[key];
      if (!link || link.home_chat === chatId) return;
      link.home_chat = chatId;
      await save();
    },
    async setLastEventId(key: string, id: number) {
      const link = doc.links[key];
      if (!link || (link.last_event_id !== null && link.last_event_id >= id)) return;
      link.last_event_id = id;
      await save();
    },

    card: (owner: string, confirmId: string): CardRecord | undefined => doc.cards[cardId(owner, confirmId)],
    /** The card shown in this message, whoever owns it: one lookup, however many cards there are. */
    cardAt(ref: MessageRef): CardRecord | undefined {
      const id = shownIn.at(ref);
      return id === undefined ? undefined : doc.cards[id];
    },
    async putCard(card: Omit<CardRecord, 'updated_at'>) {
      const id = cardId(card.owner, card.confirm_id);
      const next = { ...card, updated_at: now() };
      shownIn.set(id, doc.cards[id], next);
      doc.cards[id] = next;
      prune();
      await save();
    },
    /** Answers the card as it stands after the change (this process's copy: later changes show in it). */
    async updateCard(owner: string, confirmId: string, patch: CardPatch): Promise<CardRecord | undefined> {
      const id = cardId(owner, confirmId);
      const card = doc.cards[id];
      if (!card) return undefined;
      Object.assign(card, patch, { messages: withMessages(card.messages, patch.messages), updated_at: now() });
      shownIn.set(id, undefined, card);
      await save();
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
      await tail;
      unlock();
    },
  };
}
