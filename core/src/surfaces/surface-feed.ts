// One stream of every linked account's events for a surface (GET /v1/surface/events). It
// reads the surface feed (store/surface-store-port.ts) after one cursor, the feed position,
// so a stream that multiplexes any number of accounts resumes from one Last-Event-ID on any
// server. Reads happen when new entries may exist (this server sequenced some, or another
// server's notice arrived), with a slow fallback read, never a loop over accounts. Each event
// goes out once, naming its account and the surface's linked keys of it whose scopes show its
// type; an event no linked key may see is passed over (a cursor frame moves the client on).
// A `message` whose text drew on scopes some of those keys lack (thread/scope-redaction.ts)
// still goes out once: `redacted` gives each such key the text it reads instead, exactly as
// on its own GET /v1/events, and when no listed key may read the text whole the event itself
// carries it redacted, so the surface never receives what none of its keys may read.
import { accountPartition, type EventType, eventScope, type Scope } from '@presence/protocol';
import type { StorePort } from '../store/store-port';
import type { FeedEntry, SurfaceLinkRecord } from '../store/surface-records';
import type { SurfaceStorePort } from '../store/surface-store-port';
import { redactEventData } from '../thread/scope-redaction';

export type SurfaceFrame =
  | {
      kind: 'event';
      seq: number;
      account: string;
      key_ids: string[];
      event: { id: number; type: EventType; data: Record<string, unknown> };
      /** Per listed key that lacks a scope the event's text drew on: the text it reads instead. */
      redacted?: Record<string, string> | undefined;
    }
  | { kind: 'link_revoked'; seq: number; account: string; key_id: string; surface_user: string; at: number }
  /** No frame to send up to here: sets the client's Last-Event-ID so it resumes after it. */
  | { kind: 'cursor'; seq: number };

/** A linked key of the surface, with the scopes it may read events by. */
type KeyView = { link: SurfaceLinkRecord; scopes: readonly Scope[] };

export type SurfaceSubscription = AsyncIterable<SurfaceFrame> & { close(): void };

const PAGE = 200;
/** A read now and then even without a wake-up: a lost notice delays delivery, never loses it. */
const FALLBACK_MS = 2_000;

export function subscribeSurfaceFeed({
  surfaces,
  store,
  surfaceId,
  after,
  partition,
  onFeed,
  onStaleLink,
}: {
  surfaces: SurfaceStorePort;
  store: Pick<StorePort, 'getKey'>;
  surfaceId: string;
  /** The cursor (Last-Event-ID); undefined: start at the head (live only). */
  after: number | undefined;
  partition?: { index: number; of: number } | undefined;
  onFeed: (wake: () => void) => () => void;
  /** A link whose key is revoked but whose link is not yet: revoke it (puts link_revoked in the feed). */
  onStaleLink: (keyId: string) => void;
}): SurfaceSubscription {
  let closed = false;
  let pending = true;
  let wake: (() => void) | null = null;
  const poke = () => {
    pending = true;
    const w = wake;
    wake = null;
    w?.();
  };
  const unlisten = onFeed(poke);
  const mine = (accountId: string) => !partition || accountPartition(accountId, partition.of) === partition.index;

  /** Which of the surface's live keys of each account may see what: read once per page. */
  async function keysOf(entries: FeedEntry[]) {
    const accounts = [...new Set(entries.filter((e) => e.kind === 'event').map((e) => e.account_id))];
    const linksOf = new Map<string, KeyView[]>();
    for (const link of await surfaces.surfaceLinksOf(surfaceId, accounts)) {
      if (link.revoked_at !== null) continue;
      const k = await store.getKey(link.key_id);
      if (!k || k.state === 'revoked') {
        onStaleLink(link.key_id);
        continue;
      }
      const list = linksOf.get(link.account_id) ?? [];
      list.push({ link, scopes: k.scopes });
      linksOf.set(link.account_id, list);
    }
    return linksOf;
  }

  /** The frame an entry makes for this surface's keys; null when none of them may read it. */
  async function frameOf(f: FeedEntry, keys: Map<string, KeyView[]>): Promise<SurfaceFrame | null> {
    if (f.kind === 'link_revoked') {
      const link = await surfaces.getSurfaceLink(f.key_id as string);
      return {
        kind: 'link_revoked',
        seq: f.seq,
        account: f.account_id,
        key_id: f.key_id as string,
        surface_user: link?.surface_user ?? '',
        at: f.at,
      };
    }
    if (!f.event) return null;
    const type = f.event.type as EventType;
    const full = f.event.data;
    const views = (keys.get(f.account_id) ?? [])
      .filter(({ link, scopes }) => link.from_seq < f.seq && scopes.includes(eventScope[type]))
      .map(({ link, scopes }) => ({ keyId: link.key_id, data: redactEventData(type, full, scopes) }));
    const first = views[0];
    if (!first) return null;
    const lacking = views.filter((v) => v.data !== full);
    const data = lacking.length < views.length ? full : first.data;
    return {
      kind: 'event',
      seq: f.seq,
      account: f.account_id,
      key_ids: views.map((v) => v.keyId),
      event: { id: f.event.id, type, data },
      redacted: lacking.length > 0 ? Object.fromEntries(lacking.map((v) => [v.keyId, String(v.data.text)])) : undefined,
    };
  }

  async function* run(): AsyncGenerator<SurfaceFrame> {
    const head = await surfaces.feedHead();
    // A cursor past the head (a server restored from a backup) would wait, skipping every
    // entry up to it: the stream starts at the head instead, and says so.
    let cursor = after === undefined || after > head ? head : after;
    if (cursor !== after) yield { kind: 'cursor', seq: cursor };
    let sent = cursor;
    while (!closed) {
      if (!pending) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          const t = setTimeout(poke, FALLBACK_MS);
          t.unref?.();
        });
        continue;
      }
      pending = false;
      for (;;) {
        const { entries, through } = await surfaces.feedAfter(surfaceId, cursor, PAGE);
        const keys = await keysOf(entries);
        for (const f of entries) {
          if (closed) return;
          if (!mine(f.account_id)) continue;
          const frame = await frameOf(f, keys);
          if (!frame) continue;
          sent = f.seq;
          yield frame;
        }
        cursor = Math.max(cursor, through);
        if (entries.length < PAGE) break;
      }
      if (cursor > sent && !closed) {
        sent = cursor;
        yield { kind: 'cursor', seq: cursor };
      }
    }
  }

  const it = run();
  return {
    [Symbol.asyncIterator]: () => it,
    close() {
      closed = true;
      unlisten();
      poke();
    },
  };
}
