-- Webhooks for direct API users (issue 34): endpoints, each a cursor over its account's events
-- with its delivery state in the record, and the log of delivery attempts. New tables only.

CREATE TABLE webhooks (
  id text PRIMARY KEY,
  account_id text NOT NULL,
  created_at double precision NOT NULL,
  -- When someone must look at it: a retry's time or a lease's end (webhook-records.ts); null
  -- while it waits for nothing but new events, so idle endpoints are not in the due index.
  due_at double precision,
  doc json NOT NULL
);
CREATE INDEX webhooks_account ON webhooks (account_id, created_at);
CREATE INDEX webhooks_due ON webhooks (due_at) WHERE due_at IS NOT NULL;

CREATE TABLE webhook_deliveries (
  seq bigserial PRIMARY KEY,
  webhook_id text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  doc json NOT NULL
);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (webhook_id, seq);
