// @presence/protocol: the wire contract, zod only. Every boundary schema (requests, responses,
// events, views), shared by the server (validation, OpenAPI), core (types) and the client
// (parsing), and the one catalogue of problem types.
export * from './chain-views';
export * from './common';
export * from './events';
export * from './keys';
export * from './links';
export * from './memory';
export * from './messages';
export * from './passkeys';
export * from './policy';
export * from './presence';
export * from './problem-catalogue';
export * from './problem-status';
export * from './readable';
export * from './streams';
export * from './surfaces';
export * from './wallet';
export * from './webhooks';
