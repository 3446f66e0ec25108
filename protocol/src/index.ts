// Every boundary schema, shared by the server (validation, OpenAPI) and the client (types).
export * from './common';
export * from './events';
export * from './keys';
export * from './links';
export * from './memory';
export * from './messages';
export * from './policy';
export * from './presence';
export * from './wallet';
