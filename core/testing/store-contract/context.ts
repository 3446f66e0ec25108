// What each family's suite of the store contract (store-contract/<family>.ts) is given, and
// the sections the contract is cut into.
import type { StorePort } from '../../src/store/store-port';
import type { StoreHarness } from '../fixtures';

/** What each part is given: the harness and store the contract opened for the current test, and its sections. */
export type ContractContext = {
  current(): { h: StoreHarness; store: StorePort };
  /** Whether the store keeps what it answered across `reopen` (tests reopen only then). */
  durable: boolean;
  /** A describe block of the contract, run unless the adapter runs only some sections. */
  section(name: ContractSection, fn: () => void): void;
};

/** The contract's sections, one per record family of the port. */
export const contractSections = [
  'accounts',
  'keys',
  'memory',
  'events',
  'idempotency answers',
  'wallets',
  'intents',
  'thread',
  'standing intents',
  'links',
] as const;
export type ContractSection = (typeof contractSections)[number];
