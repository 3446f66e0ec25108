// Wallet, intent and confirmation shapes.
import { z } from 'zod';
import { queryInteger, Timestamp } from './common';
import { PasskeyHold } from './passkeys';
import { BoundedAmount, StoredPolicy } from './policy';

export const IntentRequest = z
  .strictObject({
    do: z.string().min(1).max(500).describe('The intent as a sentence, e.g. "swap 50 USDC for WETH"'),
  })
  .meta({ id: 'IntentRequest' });

/**
 * What an intent's answer (done or held) may add: what `amount` was worth at the quoted block,
 * e.g. "22.00 USD", and whether it was only simulated (a test key). Optional members go after
 * the required ones: the fast serializer writes them in that order.
 */
const IntentExtras = { value_usd: z.string().optional(), simulated: z.boolean().optional() };

export const IntentDone = z
  .object({
    status: z.literal('done'),
    intent_id: z.string(),
    tx: z.string(),
    block: z.number().int(),
    summary: z.string(),
    amount: z.string(),
    ...IntentExtras,
  })
  .meta({ id: 'IntentDone' });
export const IntentHeld = z
  .object({
    status: z.literal('needs_confirm'),
    intent_id: z.string(),
    confirm_id: z.string(),
    summary: z.string(),
    amount: z.string(),
    expires_at: Timestamp,
    ...IntentExtras,
    ...PasskeyHold.shape,
  })
  .meta({ id: 'IntentHeld' });
export const IntentResult = z.discriminatedUnion('status', [IntentDone, IntentHeld]).meta({ id: 'Intent' });
export type IntentResult = z.infer<typeof IntentResult>;

export const WithdrawRequest = z
  .strictObject({
    to: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'an address is 0x followed by 40 hex digits'),
    amount: BoundedAmount,
  })
  .meta({ id: 'WithdrawRequest' });

export const ConfirmParams = z.object({
  confirm_id: z.string().regex(/^cf_[0-9A-Za-z]{16}$/, 'a confirm id looks like cf_ followed by 16 letters or digits'),
});
export const ConfirmRequest = z.strictObject({ approve: z.boolean() }).meta({ id: 'ConfirmRequest' });
export const ConfirmResult = z
  .union([
    z.object({
      confirm_id: z.string(),
      status: z.literal('executed'),
      tx: z.string(),
      block: z.number().int(),
      simulated: z.boolean().optional(),
    }),
    z.object({ confirm_id: z.string(), status: z.literal('denied') }),
  ])
  .meta({ id: 'ConfirmResult' });
export type ConfirmResult = z.infer<typeof ConfirmResult>;

export const ConfirmStatus = z.enum(['held', 'executing', 'executed', 'denied', 'expired', 'failed']).meta({ id: 'ConfirmStatus' });
export const ConfirmationView = z
  .object({
    confirm_id: z.string(),
    intent_id: z.string(),
    status: ConfirmStatus,
    summary: z.string(),
    amount: z.string(),
    created_at: Timestamp,
    expires_at: Timestamp,
    tx: z.string().nullable(),
    block: z.number().int().nullable(),
    /** What `amount` was worth when the action was planned ("22.00 USD"). After the required
     * fields, like an intent answer's: placed among them, the server's fast serializer and zod
     * ordered the keys differently (a 500 under test). */
    value_usd: z.string().optional(),
    ...PasskeyHold.shape,
  })
  .meta({ id: 'Confirmation' });
export type ConfirmationView = z.infer<typeof ConfirmationView>;
export const ConfirmationList = z.object({ confirmations: z.array(ConfirmationView) }).meta({ id: 'ConfirmationList' });
export const ConfirmQuery = z.strictObject({
  status: ConfirmStatus.optional(),
  limit: queryInteger(z.number().int().min(1).max(200)).default(50).describe('How many of the newest to list (oldest first)'),
});

export const PolicyView = StoredPolicy.meta({ id: 'Policy' });

export const WalletView = z
  .object({
    address: z.string(),
    chain: z.object({ id: z.number().int(), name: z.string() }),
    as_of_block: z.number().int(),
    balances: z.array(
      z.object({ symbol: z.string(), address: z.string().nullable(), amount: z.string(), value_usd: z.string().nullable() }),
    ),
    lp: z.array(z.object({ pair: z.string(), underlying: z.record(z.string(), z.string()), value_usd: z.string().nullable() })),
    total_usd: z.string(),
    policy: z.object({
      spend: z.enum(['locked', 'confirm_all', 'guarded']),
      version: z.number().int(),
      per_tx_cap: z.string(),
      confirm_over: z.string(),
      daily_cap: z.string(),
      spent_today: z.string(),
      left_today: z.string(),
    }),
    pending_confirmations: z.number().int(),
  })
  .meta({ id: 'Wallet' });
export type WalletView = z.infer<typeof WalletView>;
