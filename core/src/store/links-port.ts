// The link codes family of the store port (store-port.ts): one-time codes that link a chat
// surface to an account, found by their hash.
import type { LinkRecord } from './documents';

export interface LinksPort {
  /** Stores a new link code and drops codes expired before `now`. */
  putLink(link: LinkRecord, now: number): Promise<void>;
  /** Marks the link redeemed if it is unredeemed and unexpired at `now`; answers it, or null. */
  redeemLink(hash: string, now: number): Promise<LinkRecord | null>;
  /** How many of the account's links are neither redeemed nor expired at `now` (its cap is checked against it). */
  countOutstandingLinks(accountId: string, now: number): Promise<number>;
}
