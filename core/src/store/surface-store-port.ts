// The surfaces port: surface tokens, the links made through them and the surface feed. A port
// of its own beside StorePort (same adapters: lowdb and PostgreSQL), so the record families
// of the main store stay as they are.
//
// The feed gives every event of a linked account one global position (`seq`), assigned
// after the event is stored, in one serialized step (`sequenceFeed`): positions commit in
// increasing order, so a reader that has seen position n has seen everything before it, and
// an account's events take positions in id order. That is what lets one cursor resume a
// stream that multiplexes thousands of accounts.
import type { FeedEntry, SurfaceLinkRecord, SurfaceRecord } from './surface-records';

/**
 * What a sequencing names on the events channel where other notices name an account (account
 * ids are acc_…): the servers' surface feeds read again (surface-feed-notice.ts).
 */
export const SURFACE_FEED_NOTICE = 'surface-feed';

export interface SurfaceStorePort {
  insertSurface(surface: SurfaceRecord): Promise<void>;
  listSurfaces(): Promise<SurfaceRecord[]>;
  findSurfaceByHash(hash: string): Promise<SurfaceRecord | null>;
  /** Marks it revoked (once); answers it, or null when there is no such surface. */
  revokeSurface(id: string, at: string): Promise<SurfaceRecord | null>;

  /** Stores the link with `from_seq` set to the feed's head (the caller's value is ignored). */
  insertSurfaceLink(link: SurfaceLinkRecord): Promise<SurfaceLinkRecord>;
  getSurfaceLink(keyId: string): Promise<SurfaceLinkRecord | null>;
  /** The surface's links (live and revoked) to these accounts. */
  surfaceLinksOf(surfaceId: string, accountIds: readonly string[]): Promise<SurfaceLinkRecord[]>;
  /** How many live links the surface has. */
  countSurfaceLinks(surfaceId: string): Promise<number>;
  /**
   * Marks the key's live link revoked and appends a `link_revoked` entry for its surface, in
   * one write; null when the key has no live link.
   */
  revokeSurfaceLink(keyId: string, at: number): Promise<SurfaceLinkRecord | null>;

  /** Whether a live link of some surface names the account (its events then take feed positions). */
  isLinked(accountId: string): Promise<boolean>;
  /**
   * Gives the account's stored events that have no feed position yet one each, in id order
   * (nothing when it is not linked; ask `isLinked` first, since this may take the feed's lock).
   */
  sequenceFeed(accountId: string): Promise<number>;
  /** The same for every linked account at once (one statement): catches up after a crash between append and sequencing. */
  sequenceAllFeeds(): Promise<number>;
  /**
   * The surface's entries after `after`, oldest first: its linked accounts' events (after
   * each link) and its revoked links; `through` is the position read up to (the last entry's,
   * or the head when fewer than `limit` came), where the next read starts.
   */
  feedAfter(surfaceId: string, after: number, limit: number): Promise<{ entries: FeedEntry[]; through: number }>;
  feedHead(): Promise<number>;
  /** Drops entries older than `olderThan` (ms epoch), keeping the newest. */
  pruneFeed(olderThan: number): Promise<number>;

  close(): Promise<void>;
}
