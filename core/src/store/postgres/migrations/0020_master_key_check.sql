-- The master key's check value (core/src/store/master-key-check.ts): one row, written by the
-- first server to start, compared by every later one. `rotating_to` is set while
-- `presence-server rotate-master-key` re-seals the secrets.
CREATE TABLE master_key_check (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  check_value text NOT NULL,
  rotating_to text,
  written_at timestamptz NOT NULL DEFAULT now()
);
