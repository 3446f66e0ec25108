// The shapes of the chain views as they leave core: zod schemas (for the HTTP layer's
// validation and OpenAPI) and their types. Amounts are strings with units; depth_usd is a JSON
// number rounded to cents, as the API specification asks; blocks are integers.
import { z } from 'zod';

const Block = z.number().int().nonnegative();
const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
/** "<decimal> <UNIT>", e.g. "12.5 USDC" or "3000.00 USD". */
const Amount = z.string().regex(/^-?[0-9]+(\.[0-9]+)? [A-Za-z][A-Za-z0-9.]*$/);

export const TokensViewSchema = z
  .object({
    as_of_block: Block,
    tokens: z.array(
      z.object({
        symbol: z.string(),
        address: Address,
        decimals: z.number().int(),
        stable: z.boolean(),
        price_usd: Amount.nullable(),
      }),
    ),
  })
  .meta({ id: 'TokensView' });

export const PoolViewSchema = z
  .object({
    pair: z.string(),
    address: Address,
    /** Keyed by symbol, in pair order. */
    reserves: z.record(z.string(), Amount),
    /** "3000 USDC per WETH": B per one A. */
    price: z.string(),
    depth_usd: z.number(),
    as_of_block: Block,
  })
  .meta({ id: 'Pool' });

export const PoolsViewSchema = z.object({ as_of_block: Block, pools: z.array(PoolViewSchema) }).meta({ id: 'PoolsView' });

export const PositionsViewSchema = z
  .object({
    as_of_block: Block,
    address: Address,
    holdings: z.array(
      z.object({
        symbol: z.string(),
        /** null for the native coin. */
        address: Address.nullable(),
        amount: Amount,
        value_usd: Amount.nullable(),
      }),
    ),
    lp: z.array(
      z.object({
        pair: z.string(),
        address: Address,
        /** LP tokens held, 18 decimals. */
        liquidity: z.string(),
        share_bps: z.number().int(),
        underlying: z.record(z.string(), Amount),
        value_usd: Amount.nullable(),
      }),
    ),
    total_usd: Amount,
  })
  .meta({ id: 'PositionsView' });

export const SafetyViewSchema = z
  .object({
    token: z.string(),
    address: Address,
    verdict: z.enum(['safe', 'caution', 'unsafe']),
    reasons: z.array(z.string()),
    measured: z.object({
      buy_tax_bps: z.number().int().nullable(),
      sell_tax_bps: z.number().int().nullable(),
      round_trip_loss_bps: z.number().int().nullable(),
    }),
    owner: Address.nullable(),
    can_mint: z.boolean(),
    depth_usd: z.number(),
    as_of_block: Block,
  })
  .meta({ id: 'SafetyView' });

/** GET /v1/chain/pools: one pair, or every pool. */
export const PoolsQuery = z.strictObject({
  pair: z
    .string()
    .max(40)
    .regex(/^[A-Za-z][A-Za-z0-9.]*-[A-Za-z][A-Za-z0-9.]*$/, 'pair looks like WETH-USDC')
    .optional()
    .describe('One pool, as BASE-QUOTE symbols, e.g. WETH-USDC'),
});
/** GET /v1/chain/safety: the token to measure. */
export const SafetyQuery = z.strictObject({
  token: z.string().min(1).max(64).describe('A symbol or a 0x address'),
});

export type TokensView = z.infer<typeof TokensViewSchema>;
export type PoolView = z.infer<typeof PoolViewSchema>;
export type PoolsView = z.infer<typeof PoolsViewSchema>;
export type PositionsView = z.infer<typeof PositionsViewSchema>;
export type SafetyView = z.infer<typeof SafetyViewSchema>;
