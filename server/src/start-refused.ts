// A start (or operator command) refused on purpose, because going on would serve the wrong
// data: a database migrated by a newer Presence, a data directory already moved into
// PostgreSQL. One line, exit code 3, like the refusal of a data directory in use.
export class StartRefused extends Error {}

export const REFUSED_EXIT_CODE = 3;
