// The surfaces port on the embedded store: three append-only logs under data/surfaces/
// (tokens, links, feed), each record a line; the newest line of a token or link wins. All is
// held in memory (one process owns the data directory), and a write costs one appended line,
// never a rewrite of what is kept. Sequencing runs one at a time in this process, which is
// what gives feed positions their order.
import path from 'node:path';
import { setOf } from '../../collections/set-of';
import { type AppendLog, createAppendLog } from '../append-log';
import type { StoredEvent } from '../documents';
import type { StorePort } from '../store-port';
import { type FeedEntry, FeedRecord, SurfaceLinkRecord, SurfaceRecord } from '../surface-records';
import type { SurfaceStorePort } from '../surface-store-port';

const PAGE = 500;

export type LowdbSurfaceStoreOptions = {
  dataDir: string;
  /** The main store, whose events the feed points into. */
  events: Pick<StorePort, 'eventsAfter' | 'eventBounds'>;
  fsync?: boolean;
};

/** The three logs of a data directory's surfaces (import-lowdb reads them too). */
export function surfaceLogs(dataDir: string, fsync: boolean) {
  const dir = path.join(dataDir, 'data', 'surfaces');
  return {
    tokenLog: createAppendLog(path.join(dir, 'tokens.jsonl'), SurfaceRecord, { fsync }) as AppendLog<SurfaceRecord>,
    linkLog: createAppendLog(path.join(dir, 'links.jsonl'), SurfaceLinkRecord, { fsync }) as AppendLog<SurfaceLinkRecord>,
    feedLog: createAppendLog(path.join(dir, 'feed.jsonl'), FeedRecord, { fsync }) as AppendLog<FeedRecord>,
  };
}

/**
 * What the logs hold: the newest line of each token and link, the feed, and per account the
 * newest event id with a feed position (or that linking passed over).
 */
export async function readSurfaceLogs({ tokenLog, linkLog, feedLog }: ReturnType<typeof surfaceLogs>) {
  const surfaces = new Map<string, SurfaceRecord>();
  for (const s of await tokenLog.readAll()) surfaces.set(s.id, s);
  const links = new Map<string, SurfaceLinkRecord>();
  for (const l of await linkLog.readAll()) links.set(l.key_id, l);
  const feed = await feedLog.readAll();
  const marks = new Map<string, number>();
  for (const l of links.values()) marks.set(l.account_id, Math.max(marks.get(l.account_id) ?? 0, l.from_event));
  for (const f of feed) if (f.event_id !== null) marks.set(f.account_id, Math.max(marks.get(f.account_id) ?? 0, f.event_id));
  return { surfaces, links, feed, marks };
}

export async function createLowdbSurfaceStore({ dataDir, events, fsync = true }: LowdbSurfaceStoreOptions): Promise<SurfaceStorePort> {
  const logs = surfaceLogs(dataDir, fsync);
  const { tokenLog, linkLog, feedLog } = logs;
  const read = await readSurfaceLogs(logs);
  const { surfaces, links, marks } = read;
  let feed: FeedRecord[] = read.feed;
  /** Live links per account: what makes an account's events worth sequencing. */
  const liveByAccount = new Map<string, Set<string>>();
  const index = (l: SurfaceLinkRecord) => {
    links.set(l.key_id, l);
    const set = setOf(liveByAccount, l.account_id);
    if (l.revoked_at === null) set.add(l.key_id);
    else set.delete(l.key_id);
    if (set.size === 0) liveByAccount.delete(l.account_id);
  };
  for (const l of links.values()) index(l);
  /** The last position taken; `published()` the last one readers may see (committed). */
  let head = feed.at(-1)?.seq ?? 0;
  const published = () => feed.at(-1)?.seq ?? 0;

  // Feed appends run one at a time, so positions are taken and published in order.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <R>(work: () => Promise<R>): Promise<R> => {
    const run = chain.then(work, work);
    chain = run.catch(() => undefined);
    return run;
  };
  const appendFeed = (entries: FeedRecord[]) =>
    feedLog.append(entries, () => {
      feed.push(...entries);
    });

  async function sequence(accountId: string): Promise<number> {
    if (!liveByAccount.has(accountId)) return 0;
    let n = 0;
    for (;;) {
      const after = marks.get(accountId) ?? 0;
      const page: StoredEvent[] = await events.eventsAfter(accountId, after, PAGE);
      if (page.length === 0) return n;
      const entries = page.map((e) => ({
        seq: ++head,
        account_id: accountId,
        kind: 'event' as const,
        event_id: e.id,
        key_id: null,
        surface_id: null,
        at: e.at,
      }));
      await appendFeed(entries);
      marks.set(accountId, (page.at(-1) as StoredEvent).id);
      n += page.length;
      if (page.length < PAGE) return n;
    }
  }

  return {
    async insertSurface(s) {
      await tokenLog.append([s], () => surfaces.set(s.id, s));
    },
    async listSurfaces() {
      return [...surfaces.values()];
    },
    async findSurfaceByHash(hash) {
      for (const s of surfaces.values()) if (s.hash === hash) return s;
      return null;
    },
    async revokeSurface(id, at) {
      const s = surfaces.get(id);
      if (!s) return null;
      if (s.revoked_at !== null) return s;
      const next = { ...s, revoked_at: at };
      await tokenLog.append([next], () => surfaces.set(id, next));
      return next;
    },

    insertSurfaceLink(link) {
      return serial(async () => {
        const stored = { ...link, from_seq: head };
        await linkLog.append([stored], () => index(stored));
        if (!marks.has(link.account_id)) marks.set(link.account_id, link.from_event);
        return stored;
      });
    },
    async getSurfaceLink(keyId) {
      return links.get(keyId) ?? null;
    },
    async surfaceLinksOf(surfaceId, accountIds) {
      const wanted = new Set(accountIds);
      return [...links.values()].filter((l) => l.surface_id === surfaceId && wanted.has(l.account_id));
    },
    async countSurfaceLinks(surfaceId) {
      let n = 0;
      for (const l of links.values()) if (l.surface_id === surfaceId && l.revoked_at === null) n++;
      return n;
    },
    revokeSurfaceLink(keyId, at) {
      return serial(async () => {
        const l = links.get(keyId);
        if (!l || l.revoked_at !== null) return null;
        // The account's events so far keep their places before the notice.
        await sequence(l.account_id);
        const next = { ...l, revoked_at: at };
        await linkLog.append([next], () => index(next));
        await appendFeed([
          { seq: ++head, account_id: l.account_id, kind: 'link_revoked', event_id: null, key_id: keyId, surface_id: l.surface_id, at },
        ]);
        return next;
      });
    },

    async isLinked(accountId) {
      return (liveByAccount.get(accountId)?.size ?? 0) > 0;
    },
    sequenceFeed(accountId) {
      return serial(() => sequence(accountId));
    },
    sequenceAllFeeds() {
      return serial(async () => {
        let n = 0;
        for (const accountId of liveByAccount.keys()) n += await sequence(accountId);
        return n;
      });
    },
    async feedAfter(surfaceId, after, limit) {
      // Binary search for the first position after the cursor; positions are dense and sorted.
      let lo = 0;
      let hi = feed.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((feed[mid] as FeedRecord).seq <= after) lo = mid + 1;
        else hi = mid;
      }
      const out: FeedEntry[] = [];
      let through = after;
      for (let i = lo; i < feed.length && out.length < limit; i++) {
        const f = feed[i] as FeedRecord;
        through = f.seq;
        if (f.kind === 'link_revoked') {
          if (f.surface_id === surfaceId) out.push({ ...f, event: null });
          continue;
        }
        const linked = [...(liveByAccount.get(f.account_id) ?? [])].some((k) => {
          const l = links.get(k);
          return l?.surface_id === surfaceId && l.from_seq < f.seq;
        });
        if (!linked) continue;
        const [event] = await events.eventsAfter(f.account_id, (f.event_id as number) - 1, 1);
        out.push({ ...f, event: event?.id === f.event_id ? event : null });
      }
      return { entries: out, through: out.length < limit ? Math.max(through, published()) : through };
    },
    async feedHead() {
      return published();
    },
    pruneFeed(olderThan) {
      return serial(async () => {
        let cut = 0;
        await feedLog.rewrite(
          () => {
            while (cut < feed.length - 1 && (feed[cut] as FeedRecord).at < olderThan) cut++;
            return cut > 0 ? feed.slice(cut) : null;
          },
          (kept) => {
            feed = [...kept];
          },
        );
        return cut;
      });
    },
    async close() {
      await serial(async () => undefined);
      await Promise.all([tokenLog.close(), linkLog.close(), feedLog.close()]);
    },
  };
}
