-- Cost follows work, not accounts (issue 20): what grows becomes rows, and every kind of
-- background work finds what is due with one indexed query instead of a loop over accounts.

-- Memory entries as rows (they were one document per account, rewritten whole on every pin).
-- `due_at` is when the compactor must next look at the entry (null: a user's pin, never);
-- the count of an account's entries lives on its account_seq row, whose lock serializes the
-- account's memory changes, so the cap is checked without counting rows.
CREATE TABLE memory_entries (
  account_id text NOT NULL,
  key text NOT NULL,
  due_at double precision,
  entry json NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX memory_entries_due ON memory_entries (due_at) WHERE due_at IS NOT NULL;
ALTER TABLE account_seq ADD COLUMN memory bigint NOT NULL DEFAULT 0;

INSERT INTO account_seq (account_id) SELECT account_id FROM memory ON CONFLICT (account_id) DO NOTHING;
INSERT INTO memory_entries (account_id, key, due_at, entry)
  SELECT m.account_id, e->>'key',
    -- Entries written before due_at existed are due at once: the compactor then sets it.
    CASE WHEN e->>'tier' = 'pinned' AND e->>'pinned_by' = 'user' THEN NULL ELSE 0 END,
    e
  FROM memory m, json_array_elements(m.entries) AS e
  ON CONFLICT (account_id, key) DO NOTHING;
UPDATE account_seq s SET memory = c.n
  FROM (SELECT account_id, count(*) AS n FROM memory_entries GROUP BY account_id) c
  WHERE s.account_id = c.account_id;
DROP TABLE memory;

-- Holds past their time: the beat's expiry sweep reads only these.
ALTER TABLE intents ADD COLUMN expires_at double precision;
UPDATE intents SET expires_at = (doc->>'expires_at')::double precision WHERE state = 'held';
CREATE INDEX intents_held_expiry ON intents (expires_at) WHERE state = 'held';

-- Standing intents that may fire: the columns the beat's one query reads.
ALTER TABLE standing
  ADD COLUMN active boolean NOT NULL DEFAULT true,
  ADD COLUMN trigger_kind text NOT NULL DEFAULT 'price',
  ADD COLUMN next_at double precision,
  ADD COLUMN has_pending boolean NOT NULL DEFAULT false,
  ADD COLUMN created_at double precision NOT NULL DEFAULT 0;
UPDATE standing SET
  active = (doc->>'state') = 'active',
  trigger_kind = doc->'trigger'->>'kind',
  next_at = (doc->>'next_at')::double precision,
  has_pending = COALESCE(json_array_length(doc->'pending'), 0) > 0,
  created_at = (doc->>'created_at')::double precision;
CREATE INDEX standing_pending ON standing (seq) WHERE has_pending;
CREATE INDEX standing_daily_due ON standing (next_at) WHERE active AND trigger_kind = 'daily';
CREATE INDEX standing_price ON standing (created_at) WHERE active AND trigger_kind = 'price';

-- Retention by age across accounts in one range scan.
CREATE INDEX events_at ON events (at);
