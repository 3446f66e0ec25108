-- Everything the store port keeps, one table per kind of record. A record is kept whole in a
-- `json` column (the record as core wrote it) beside the few columns its operations look up
-- or order by; the adapter writes both in the same statement. `json`, not `jsonb`: jsonb
-- refuses "\u0000" inside a string, and a user's text may carry one (lowdb keeps it); json
-- keeps the text as written. No query looks inside a document, so nothing is lost.
-- No foreign keys between tables: the port lets events, memory or intents be written for an
-- account id before (or without) its account record, as the embedded store does.

-- Per-account id counters for events and thread entries. An append bumps its row and inserts
-- in one statement: the row lock serializes appends of one account across every connection
-- and server, ids have no gaps (a failed append rolls its bump back), and appends commit in
-- id order, so a reader never sees id n+1 before id n.
CREATE TABLE account_seq (
  account_id text PRIMARY KEY,
  events bigint NOT NULL DEFAULT 0,
  thread bigint NOT NULL DEFAULT 0
);

-- `seq` keeps creation order for lists (the embedded store answers in insertion order).
CREATE TABLE accounts (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  doc json NOT NULL
);
CREATE INDEX accounts_seq ON accounts (seq);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  account_id text NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  -- Every secret hash of the key (current and rotated-away): the auth lookup on each request.
  secret_hashes text[] NOT NULL,
  doc json NOT NULL
);
CREATE INDEX api_keys_account ON api_keys (account_id, seq);
CREATE INDEX api_keys_secret_hashes ON api_keys USING gin (secret_hashes);

-- One memory document per account: updates lock its row.
CREATE TABLE memory (
  account_id text PRIMARY KEY,
  entries json NOT NULL
);

CREATE TABLE events (
  account_id text NOT NULL,
  id bigint NOT NULL,
  type text NOT NULL,
  at double precision NOT NULL,
  data json NOT NULL,
  PRIMARY KEY (account_id, id)
);

-- `record` is the answer as stored: its body sealed under the master key.
CREATE TABLE idempotency (
  account_id text NOT NULL,
  key text NOT NULL,
  created_at double precision NOT NULL,
  record json NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_created_at ON idempotency (created_at);

-- `funded` lives beside the document so marking it is one UPDATE.
CREATE TABLE wallets (
  account_id text PRIMARY KEY,
  funded boolean NOT NULL,
  doc json NOT NULL
);

CREATE TABLE intents (
  account_id text NOT NULL,
  id text NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  state text NOT NULL,
  confirm_id text,
  idempotency_key text,
  -- When a spending record spent (executed_at, or its last change while in flight) and its
  -- USD value: the daily cap's sum reads only these, from the partial index below.
  spent_at double precision NOT NULL,
  value_usd numeric NOT NULL,
  doc json NOT NULL,
  PRIMARY KEY (account_id, id)
);
CREATE INDEX intents_account ON intents (account_id, seq);
CREATE INDEX intents_state ON intents (state, seq);
CREATE INDEX intents_confirm_id ON intents (account_id, confirm_id) WHERE confirm_id IS NOT NULL;
CREATE INDEX intents_idempotency_key ON intents (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX intents_spend ON intents (account_id, spent_at) INCLUDE (value_usd)
  WHERE state IN ('executing', 'signed', 'done');

CREATE TABLE thread (
  account_id text NOT NULL,
  id bigint NOT NULL,
  entry json NOT NULL,
  PRIMARY KEY (account_id, id)
);

CREATE TABLE standing (
  account_id text NOT NULL,
  id text NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  doc json NOT NULL,
  PRIMARY KEY (account_id, id)
);
CREATE INDEX standing_account ON standing (account_id, seq);

-- `redeemed_at` lives beside the document so redeeming is one compare-and-set UPDATE.
CREATE TABLE links (
  hash text PRIMARY KEY,
  expires_at double precision NOT NULL,
  redeemed_at double precision,
  doc json NOT NULL
);
CREATE INDEX links_expires_at ON links (expires_at);
