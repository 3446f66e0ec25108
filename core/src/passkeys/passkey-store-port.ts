// The passkeys port: credentials and link tickets. A port of its own beside StorePort (like the
// surfaces port), with the same two adapters (lowdb, PostgreSQL), so any server of a deployment
// serves either step of a ceremony. Each operation is one atomic step; the ones that guard a
// single use are compare-and-set and answer null when the condition does not hold.
import type { PasskeyCredentialRecord, PasskeyTicketRecord } from './passkey-records';

export interface PasskeyStorePort {
  /** Adds it; false when its credential id is already stored (on any account). */
  insertCredential(credential: PasskeyCredentialRecord): Promise<boolean>;
  /** By the authenticator's credential id; deleted ones are not found. */
  findCredential(credentialId: string): Promise<PasskeyCredentialRecord | null>;
  /** The account's credentials (not deleted), oldest first. */
  listCredentials(accountId: string): Promise<PasskeyCredentialRecord[]>;
  /**
   * Records a verified use: only when `counter` is above the stored one, or both are 0 (an
   * authenticator that keeps no counter); null otherwise (a cloned or replayed authenticator).
   */
  recordUse(credentialId: string, counter: number, at: number): Promise<PasskeyCredentialRecord | null>;
  /** Marks the account's credential deleted; answers it, or null when there is none. */
  deleteCredential(accountId: string, id: string, at: number): Promise<PasskeyCredentialRecord | null>;

  /** Stores a ticket unless one with its hash exists; answers the stored one (first writer wins). */
  putTicket(ticket: PasskeyTicketRecord): Promise<PasskeyTicketRecord>;
  getTicket(hash: string): Promise<PasskeyTicketRecord | null>;
  /** Sets the ticket's challenge (replacing one not yet taken) if it is unused and unexpired at `now`. */
  setChallenge(hash: string, challenge: string, now: number): Promise<PasskeyTicketRecord | null>;
  /** Takes the challenge once: answers the ticket as it was (challenge included) and clears it; null when there is none to take. */
  takeChallenge(hash: string, now: number): Promise<PasskeyTicketRecord | null>;
  /** Marks the ticket used if it is unused and unexpired at `now`; answers it, or null. */
  useTicket(hash: string, now: number): Promise<PasskeyTicketRecord | null>;
  /** How many of the account's enroll links are neither used nor expired at `now` (their cap is checked against it). */
  countOpenEnrollTickets(accountId: string, now: number): Promise<number>;
  /** Drops tickets that expired before `before` (set-based). */
  pruneTickets(before: number): Promise<number>;

  close(): Promise<void>;
}
