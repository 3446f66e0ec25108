// The NOTIFY channels the PostgreSQL stores announce a commit on: the store sends them in the
// statement that writes (so they go out at commit), and the cluster (cluster/postgres/cluster.ts)
// LISTENs on them for every server. Named here, on the sending side, so the store needs
// nothing from the coordination that listens.

/** An event was appended: the payload is "account_id:id" (or a sequencing's notice, surfaces.ts). */
export const EVENTS_CHANNEL = 'presence_events';
/** A key's record changed: the payload is its id. */
export const KEYS_CHANNEL = 'presence_keys';
/** An account's document or memory changed: the payload is its id. */
export const ACCOUNTS_CHANNEL = 'presence_accounts';
/** Accounts a surface link was made for (surfaces.ts). */
export const LINKS_CHANNEL = 'presence_links';
/** A surface token was revoked: the payload is its id (surfaces.ts). */
export const SURFACES_CHANNEL = 'presence_surfaces';
