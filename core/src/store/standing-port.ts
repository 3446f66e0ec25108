// The standing intents family of the store port (store-port.ts): rules that fire on a
// schedule or a price, and the fires they have pending.
import type { StandingRecord } from './documents';

/** Standing intents that may fire now (see `dueStanding`). */
export type StandingDue = {
  now: number;
  /** The price moved (a new block): every active price trigger is checked. */
  pricesMoved: boolean;
  /** Otherwise only price triggers created at or after this time (ms epoch) are. */
  createdSince: number;
};

export interface StandingPort {
  putStanding(record: StandingRecord): Promise<void>;
  listStanding(accountId: string): Promise<StandingRecord[]>;
  /**
   * Across accounts, one indexed query: records with fires pending, and active ones whose
   * trigger may hold now (daily ones past `next_at`; price ones as `due` says).
   */
  dueStanding(due: StandingDue): Promise<StandingRecord[]>;
  updateStanding(accountId: string, id: string, update: (r: StandingRecord) => StandingRecord): Promise<StandingRecord | null>;
}
