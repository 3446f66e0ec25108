// Who a service works for: an account, through a key of one kind. A key's Principal is one;
// what the presence does on its own (a standing intent firing, recovery, the compactor) acts
// as the account's live caller. Services take this one value and pass it on whole; which store
// it reads and writes (the live store, or the test keys' overlay) is chosen from it in one
// place, create-core's `storeFor`.
import type { Principal } from './key-service';

export type Caller = Pick<Principal, 'accountId' | 'kind'>;

/** The account itself, as the presence acts for it between requests. */
export const accountCaller = (accountId: string): Caller => ({ accountId, kind: 'live' });
