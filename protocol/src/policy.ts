// The spend policy document (DESIGN.md "Spend policy document"). PUT replaces it whole.
import { z } from 'zod';
import { Timestamp } from './common';

/**
 * The most an amount may say, in its unit: 10^12 (a trillion USD, or of a token). More than any
 * wallet holds, and far inside what a chain can carry (uint256) at any token's decimals, so no
 * cap, withdrawal or intent can name a number the chain would refuse to encode.
 */
export const MAX_AMOUNT = 1_000_000_000_000n;
export const MAX_AMOUNT_TEXT = '1000000000000 (10^12)';

/** Whether a plain decimal ("12.5") is at most MAX_AMOUNT (what is not a decimal is for other checks to refuse). */
export const withinMaxAmount = (decimal: string): boolean => {
  if (!/^\d+(\.\d+)?$/.test(decimal)) return true;
  const [whole = '0', fraction = ''] = decimal.split('.');
  if (whole.replace(/^0+/, '').length > 13) return false;
  const w = BigInt(whole);
  return w < MAX_AMOUNT || (w === MAX_AMOUNT && !/[1-9]/.test(fraction));
};

/** An amount's shape. What is stored is read with it alone: a record written before the bound still reads. */
export const AmountString = z
  .string()
  .regex(/^[0-9]+(\.[0-9]+)? [A-Za-z][A-Za-z0-9]{0,15}$/, 'an amount is "<decimal> <UNIT>", e.g. "50 USD" or "0.1 WETH"')
  .meta({ id: 'Amount', examples: ['0.5 ETH'] });

/** An amount a client sends: shaped, and at most MAX_AMOUNT of its unit. */
export const BoundedAmount = AmountString.max(64).refine(
  (s) => withinMaxAmount(s.split(' ')[0] ?? ''),
  `an amount is at most ${MAX_AMOUNT_TEXT} of its unit`,
);

const denyRuleFields = {
  action: z.enum(['swap', 'send', 'wrap', 'unwrap', 'withdraw', '*']).optional(),
  token: z.string().min(1).max(64).optional(),
  to: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/)
    .optional(),
};
const namesOne = (r: { action?: unknown; token?: unknown; to?: unknown }) =>
  r.action !== undefined || r.token !== undefined || r.to !== undefined;
const NAMES_ONE = 'a deny rule names at least one of action, token, to';

export const DenyRule = z.object(denyRuleFields).refine(namesOne, NAMES_ONE).meta({ id: 'DenyRule' });

const policyFields = {
  per_tx_cap: AmountString,
  confirm_over: AmountString,
  daily_cap: AmountString,
  /** Holds above this are approved only with a passkey (DESIGN.md "Passkey approvals"); absent: off. */
  passkey_over: AmountString.optional(),
  deny: z.array(DenyRule).max(100),
  withdraw_allowlist: z.array(z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'an address is 0x followed by 40 hex digits')).max(100),
  max_slippage_bps: z.number().int().min(0).max(5000),
  confirm_timeout_s: z.number().int().min(10).max(86_400),
};

/** The document as stored and answered. */
export const PolicyDocument = z.object(policyFields);

/**
 * PUT /v1/wallet/policy's body: the whole document, amounts bounded, and no field (at any depth)
 * the schema does not name (an unknown field is a typo, refused).
 */
export const PolicyRequest = z
  .strictObject({
    ...policyFields,
    per_tx_cap: BoundedAmount,
    confirm_over: BoundedAmount,
    daily_cap: BoundedAmount,
    passkey_over: BoundedAmount.optional(),
    deny: z.array(z.strictObject(denyRuleFields).refine(namesOne, NAMES_ONE)).max(100),
  })
  .meta({ id: 'PolicyDocument' });
export type PolicyDocument = z.infer<typeof PolicyDocument>;

// The optional field last: the fast serializer writes optional properties after the required
// ones, and an answer must come out the same through it and through zod.
const { passkey_over, ...requiredFields } = PolicyDocument.shape;
export const StoredPolicy = z.object({ ...requiredFields, version: z.number().int(), updated_at: Timestamp, passkey_over });
export type StoredPolicy = z.infer<typeof StoredPolicy>;

export const SpendLabel = z.enum(['locked', 'confirm_all', 'guarded']).meta({ id: 'SpendLabel' });
export type SpendLabel = z.infer<typeof SpendLabel>;

export const defaultPolicy: PolicyDocument = {
  per_tx_cap: '50 USD',
  confirm_over: '10 USD',
  daily_cap: '200 USD',
  deny: [{ action: 'send' }, { token: 'SCAM' }],
  withdraw_allowlist: [],
  max_slippage_bps: 100,
  confirm_timeout_s: 600,
};
