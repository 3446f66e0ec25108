// @presence/core/testing: the contract suites a store adapter (or an idempotency-leases
// implementation) is held to, for adapters written outside this repository as much as ours.
// They are vitest suites: call them at the top level of a test file with a harness that opens
// your adapter on fresh data.
//
//   import { describeDueWorkContract, describeStoreContract } from '@presence/core/testing';
//   describeStoreContract('my store', async (keystore) => ({ store, peers, reopen, close }));
//   describeDueWorkContract('my store', open);
export { describeDueWorkContract } from './due-work-contract';
export { intentRecord, type OpenStoreHarness, type StoreHarness, standing } from './fixtures';
export { describeLeasesContract, type LeasesHarness } from './leases-contract';
export { createSoftAuthenticator, type SoftAuthenticatorOptions } from './soft-authenticator';
export { type ContractContext, type ContractSection, contractSections, describeStoreContract } from './store-contract';
export { type ReceivedHook, type ReceiverBehaviour, startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';
