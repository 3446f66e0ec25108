-- What lets several servers on one database behave as one (issue 17, the messaging half).
-- Event appends also NOTIFY the channel `presence_events` (payload "account_id:id") in the
-- appending statement, so the notification is sent when, and only if, the event committed;
-- nothing here is needed for that.

-- An Idempotency-Key whose first request is running somewhere: the owner (a server's random
-- id) renews `expires_at` while its handler runs; a duplicate on another server waits, and
-- takes the claim over once the lease has run out (its owner died mid-request). The row is
-- deleted when the answer is stored or the request gave up.
CREATE TABLE idempotency_claims (
  account_id text NOT NULL,
  key text NOT NULL,
  owner text NOT NULL,
  fingerprint text NOT NULL,
  expires_at double precision NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_claims_expires_at ON idempotency_claims (expires_at);

-- Rate-limit windows shared by every server: per scope (the per-key limit, failed
-- authentications, link redemptions) and id, the times (ms epoch) of the requests counted in
-- the last window, at most `limit` of them: the same exact sliding log the embedded limiter
-- keeps in memory, updated in one statement under the row's lock.
CREATE TABLE rate_logs (
  scope text NOT NULL,
  id text NOT NULL,
  times double precision[] NOT NULL,
  -- The newest time in the log, for dropping idle rows.
  last_at double precision NOT NULL,
  -- Whether the statement that last wrote the row counted its request (read by RETURNING).
  allowed boolean NOT NULL,
  PRIMARY KEY (scope, id)
);
CREATE INDEX rate_logs_last_at ON rate_logs (last_at);

-- Windows of limits too large for a log of times (over 1,000 requests per window): the count
-- of the current fixed bucket and of the one before, the previous weighted by how much of it
-- the sliding window still covers (an approximation that assumes the previous bucket's
-- requests were spread evenly). O(1) per request, whatever the limit.
CREATE TABLE rate_buckets (
  scope text NOT NULL,
  id text NOT NULL,
  bucket_start double precision NOT NULL,
  cur bigint NOT NULL,
  prev bigint NOT NULL,
  allowed boolean NOT NULL,
  PRIMARY KEY (scope, id)
);
CREATE INDEX rate_buckets_bucket_start ON rate_buckets (bucket_start);
