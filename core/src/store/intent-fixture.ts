// A whole intent record for store tests, with the fields a test cares about patched in.
import type { IntentRecord } from './documents';

export const intentRecord = (id: string, at: number, patch: Partial<IntentRecord> = {}): IntentRecord => ({
  id,
  account_id: 'a',
  source: 'api',
  idempotency_key: null,
  text: 'wrap 1 ETH',
  action: 'wrap',
  summary: 'wrap 1 ETH',
  amount: '1 ETH',
  value_usd: '0',
  tokens: ['ETH', 'WETH'],
  to: null,
  quote_block: 1,
  steps: [],
  state: 'executing',
  confirm_id: null,
  expires_at: null,
  txs: [],
  block: null,
  error: null,
  context: null,
  created_at: at,
  updated_at: at,
  executed_at: null,
  ...patch,
});
