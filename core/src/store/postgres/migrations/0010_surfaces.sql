-- Surfaces at scale (issue 21): surface tokens, the links made through them, and the surface
-- feed, one global order over linked accounts' events that surface streams read with one
-- cursor. New tables only; nothing of the main store changes.

CREATE TABLE surfaces (
  id text PRIMARY KEY,
  hash text NOT NULL UNIQUE,
  revoked_at text,
  doc json NOT NULL
);

-- One row per key a surface redeemed. `from_event`: the account's newest event when linked
-- (the feed starts after it); `from_seq`: the feed's head when linked (the surface's stream
-- carries the account's entries after it).
CREATE TABLE surface_links (
  key_id text PRIMARY KEY,
  surface_id text NOT NULL REFERENCES surfaces (id),
  account_id text NOT NULL,
  surface_user text NOT NULL,
  created_at double precision NOT NULL,
  from_event bigint NOT NULL,
  from_seq bigint NOT NULL,
  revoked_at double precision
);
CREATE INDEX surface_links_live ON surface_links (surface_id, account_id) WHERE revoked_at IS NULL;
CREATE INDEX surface_links_account ON surface_links (account_id) WHERE revoked_at IS NULL;

-- Per linked account, the newest event id that has a feed position (or that linking passed
-- over): sequencing inserts the events after it.
CREATE TABLE surface_marks (
  account_id text PRIMARY KEY,
  through bigint NOT NULL
);

-- The feed. Positions are taken and committed one sequencing transaction at a time (under an
-- advisory transaction lock), so they commit in increasing order: a reader that saw position
-- n has seen every position before it. `surface_id` is set on link_revoked entries only.
CREATE TABLE surface_feed (
  seq bigserial PRIMARY KEY,
  account_id text NOT NULL,
  kind text NOT NULL,
  event_id bigint,
  key_id text,
  surface_id text,
  at double precision NOT NULL
);
CREATE INDEX surface_feed_at ON surface_feed (at);
