-- Passkey approvals (issue 36): the accounts' WebAuthn credentials and the tickets behind the
-- one-time enroll and approve links. New tables only; nothing of the main store changes.

-- One row per credential; `credential_id` is the authenticator's (unique across accounts).
-- A deleted credential is removed.
CREATE TABLE passkey_credentials (
  credential_id text PRIMARY KEY,
  id text NOT NULL UNIQUE,
  account_id text NOT NULL,
  doc json NOT NULL,
  counter bigint NOT NULL,
  created_at double precision NOT NULL
);
CREATE INDEX passkey_credentials_account ON passkey_credentials (account_id, created_at);

-- One row per link, by the SHA-256 of its token (the token is never stored). `challenge` is the
-- ceremony under way, taken once by its verification.
CREATE TABLE passkey_tickets (
  hash text PRIMARY KEY,
  kind text NOT NULL,
  account_id text NOT NULL,
  doc json NOT NULL,
  challenge text,
  used_at double precision,
  expires_at double precision NOT NULL
);
CREATE INDEX passkey_tickets_open_enroll ON passkey_tickets (account_id) WHERE kind = 'enroll' AND used_at IS NULL;
CREATE INDEX passkey_tickets_expiry ON passkey_tickets (expires_at);
