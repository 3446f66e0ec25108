// The spend policy document (DESIGN.md "Spend policy document"). PUT replaces it whole.
import { z } from 'zod';

export const AmountString = z
  .string()
  .regex(/^\d+(\.\d+)? [A-Za-z][A-Za-z0-9]{0,15}$/, 'an amount is "<decimal> <UNIT>", e.g. "50 USD" or "0.1 WETH"');

export const DenyRule = z
  .object({
    action: z.enum(['swap', 'send', 'wrap', 'unwrap', 'withdraw', '*']).optional(),
    token: z.string().min(1).max(64).optional(),
    to: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/)
      .optional(),
  })
  .refine(
    (r) => r.action !== undefined || r.token !== undefined || r.to !== undefined,
    'a deny rule names at least one of action, token, to',
  );

export const PolicyDocument = z.object({
  per_tx_cap: AmountString,
  confirm_over: AmountString,
  daily_cap: AmountString,
  /** Holds above this are approved only with a passkey (DESIGN.md "Passkey approvals"); absent: off. */
  passkey_over: AmountString.optional(),
  deny: z.array(DenyRule).max(100),
  withdraw_allowlist: z.array(z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'an address is 0x followed by 40 hex digits')).max(100),
  max_slippage_bps: z.number().int().min(0).max(5000),
  confirm_timeout_s: z.number().int().min(10).max(86_400),
});
export type PolicyDocument = z.infer<typeof PolicyDocument>;

// The optional field last: the fast serializer writes optional properties after the required
// ones, and an answer must come out the same through it and through zod.
const { passkey_over, ...requiredFields } = PolicyDocument.shape;
export const StoredPolicy = z.object({ ...requiredFields, version: z.number().int(), updated_at: z.string(), passkey_over });
export type StoredPolicy = z.infer<typeof StoredPolicy>;

export const SpendLabel = z.enum(['locked', 'confirm_all', 'guarded']);
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
