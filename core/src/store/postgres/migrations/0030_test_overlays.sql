-- Test keys on many servers: each account's test-key overlay, shared so any server answers a
-- test key's reads (core/src/store/shared-overlay.ts). One row per account with test-key
-- writes: its bounded snapshot (JSON text, kept byte for byte) and a version servers compare
-- before each test-key call. UNLOGGED: test-key writes are never meant to outlive the
-- database's own restart (a crash empties the table, as a server restart empties its memory).
CREATE UNLOGGED TABLE test_overlays (
  account_id text PRIMARY KEY,
  version bigint NOT NULL,
  snapshot text,
  updated_at timestamptz NOT NULL DEFAULT now()
);
