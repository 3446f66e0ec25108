-- The cap on an account's holds (actions waiting for approval) is checked at each new hold
-- under the account's gate lock: count the account's holds from a partial index of them alone,
-- not by walking its history (intents_account) or every account's holds (intents_state).
CREATE INDEX intents_held_account ON intents (account_id) WHERE state = 'held';
