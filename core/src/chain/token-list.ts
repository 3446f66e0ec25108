// The token/DEX list: which chain, which Uniswap V2 deployment and which tokens the presence
// knows. A real network is configured by pointing at such a JSON file; the devnet produces
// one from its deployment, so nothing downstream can tell the two apart.
import { readFile } from 'node:fs/promises';
import type { Address } from 'viem';
import { getAddress, isAddress } from 'viem/utils';
import { z } from 'zod';
import { invalidRequest, notFound } from '../errors/presence-error';
import { redactMessage } from '../errors/redact-message';

export const AddressSchema = z
  .string()
  .refine((s) => isAddress(s, { strict: false }), 'not a 20-byte hex address')
  .transform((s) => getAddress(s));

/** Symbols double as amount units ("12.5 USDC"), so they must be single words. "ETH" is the
 * native coin and may not be reused by a listed token. */
const SymbolSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9.]{0,15}$/, 'symbol: 1-16 letters/digits/dots, starting with a letter')
  .refine((s) => s.toUpperCase() !== 'ETH' && s.toUpperCase() !== 'USD', 'ETH and USD are reserved units');

export const TokenSchema = z.object({
  symbol: SymbolSchema,
  address: AddressSchema,
  decimals: z.number().int().min(0).max(36),
  /** Priced at exactly 1 USD. Only for fiat-backed or otherwise trusted dollar tokens. */
  stable: z.boolean().optional(),
});

/** The list's shape without the cross-field rules, for schemas that extend it. */
export const TokenListObject = z.object({
  /** Free text for humans; JSON has no comments. */
  $comment: z.string().optional(),
  chain: z.object({ id: z.number().int().positive(), name: z.string().min(1) }),
  dex: z.object({
    kind: z.literal('uniswap-v2'),
    factory: AddressSchema,
    router: AddressSchema,
    weth: AddressSchema,
  }),
  tokens: z.array(TokenSchema).min(1),
});

/** Cross-field rules: unique symbols and addresses, and WETH listed as a token. */
export function checkTokenList(list: z.infer<typeof TokenListObject>, ctx: z.RefinementCtx): void {
  const symbols = new Set<string>();
  const addresses = new Set<string>();
  list.tokens.forEach((t, i) => {
    if (symbols.has(t.symbol.toUpperCase())) {
      ctx.addIssue({ code: 'custom', path: ['tokens', i, 'symbol'], message: `duplicate symbol ${t.symbol}` });
    }
    if (addresses.has(t.address)) {
      ctx.addIssue({ code: 'custom', path: ['tokens', i, 'address'], message: `duplicate address ${t.address}` });
    }
    symbols.add(t.symbol.toUpperCase());
    addresses.add(t.address);
  });
  // Pricing walks every token through its WETH pool, so WETH itself must be listed.
  if (!addresses.has(list.dex.weth)) {
    ctx.addIssue({ code: 'custom', path: ['dex', 'weth'], message: 'dex.weth must also appear in tokens' });
  }
}

export const TokenListSchema = TokenListObject.superRefine(checkTokenList);

export type Token = z.infer<typeof TokenSchema>;
export type TokenList = z.infer<typeof TokenListSchema>;

export function parseTokenList(input: unknown): TokenList {
  return TokenListSchema.parse(input);
}

export async function loadTokenList(path: string): Promise<TokenList> {
  const text = await readFile(path, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`token list ${path} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = TokenListSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new Error(`token list ${path}: ${first?.path.join('.') || '(root)'}: ${first?.message}`);
  }
  return parsed.data;
}

/** The list's WETH entry (guaranteed present by the schema). */
export function wethOf(list: TokenList): Token {
  const weth = list.tokens.find((t) => t.address === list.dex.weth);
  if (!weth) throw new Error('token list has no WETH entry');
  return weth;
}

/**
 * What a refusal repeats of a typed token: short, and masked where it is shaped like a
 * secret. Whatever is typed comes back in a problem body a bot may post to a chat, and
 * someone will paste a key, or a private key, where a token belongs.
 */
const typed = (key: string) => redactMessage(key.length <= 24 ? key : `${key.slice(0, 8)}…`);

/** Finds a token by symbol (case-insensitive) or address. "ETH" resolves to WETH, because a
 * pool or a safety check on ETH can only mean its wrapped form. */
export function resolveToken(list: TokenList, symbolOrAddress: string): Token {
  const key = symbolOrAddress.trim();
  if (key.startsWith('0x') || key.startsWith('0X')) {
    if (!isAddress(key, { strict: false })) throw invalidRequest(`not an address: ${typed(key)}`);
    const address = getAddress(key);
    const token = list.tokens.find((t) => t.address === address);
    if (!token) throw notFound(`token ${address} is not in the ${list.chain.name} token list`);
    return token;
  }
  const upper = key.toUpperCase();
  if (upper === 'ETH') return wethOf(list);
  const token = list.tokens.find((t) => t.symbol.toUpperCase() === upper);
  if (!token) throw notFound(`unknown token ${typed(key)}`);
  return token;
}

export function tokenByAddress(list: TokenList, address: Address): Token | undefined {
  return list.tokens.find((t) => t.address === address);
}
