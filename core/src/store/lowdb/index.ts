// The embedded store (lowdb JSON documents and append-only logs under the data directory), for
// the `@presence/core/lowdb` subpath.
export { createLowdbStore, type LowdbStoreOptions } from './lowdb-store';
export { createLowdbPasskeyStore } from './passkeys';
export { resealLowdb } from './reseal';
export { createLowdbSurfaceStore, type LowdbSurfaceStoreOptions } from './surfaces';
export { createLowdbWebhookStore } from './webhooks';
