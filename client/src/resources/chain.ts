// Read-only chain views (wallet:read), each priced and stamped with as_of_block. The answer
// type follows the view name.
import { PoolsViewSchema, PositionsViewSchema, SafetyViewSchema, TokensViewSchema } from '@presence/protocol';
import type { z } from 'zod';
import type { Http, RequestOptions } from '../http';

const viewSchemas = {
  tokens: TokensViewSchema,
  pools: PoolsViewSchema,
  positions: PositionsViewSchema,
  safety: SafetyViewSchema,
} as const;

export type ChainViewName = keyof typeof viewSchemas;
export type ChainView<V extends ChainViewName> = z.infer<(typeof viewSchemas)[V]>;
/** `pair` (e.g. WETH-USDC) narrows pools; `token` (symbol or address) is required by safety. */
export type ChainViewQuery = { pair?: string; token?: string };

export const getChainView = <V extends ChainViewName>(
  http: Http,
  view: V,
  query: ChainViewQuery = {},
  options?: RequestOptions,
): Promise<ChainView<V>> =>
  http.json(viewSchemas[view], { method: 'GET', path: `/v1/chain/${view}`, query }, options) as Promise<ChainView<V>>;

export const chainResource = (http: Http) => ({
  view: <V extends ChainViewName>(view: V, query?: ChainViewQuery, options?: RequestOptions) => getChainView(http, view, query, options),
});
