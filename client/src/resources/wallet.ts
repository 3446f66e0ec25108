// The wallet: balances priced in USD, the spend policy, intents and withdrawals.
// Intents answer 200 done or 202 needs_confirm; a policy deny is a thrown 409 policy_block.
import {
  type IntentRequest,
  IntentResult,
  type PolicyDocument,
  PolicyView as PolicyViewSchema,
  WalletView,
  type WithdrawRequest,
} from '@presence/protocol';
import type { z } from 'zod';
import type { Http, RequestOptions } from '../http';

export type { IntentResult, PolicyDocument, WalletView } from '@presence/protocol';
export type PolicyView = z.infer<typeof PolicyViewSchema>;
export type IntentParameters = z.input<typeof IntentRequest>;
export type WithdrawParameters = z.input<typeof WithdrawRequest>;

export const getWallet = (http: Http, options?: RequestOptions): Promise<WalletView> =>
  http.json(WalletView, { method: 'GET', path: '/v1/wallet' }, options);

export const getPolicy = (http: Http, options?: RequestOptions): Promise<PolicyView> =>
  http.json(PolicyViewSchema, { method: 'GET', path: '/v1/wallet/policy' }, options);

/** Replaces the whole document (admin); answers the stored one with its new version. */
export const setPolicy = (http: Http, policy: PolicyDocument, options?: RequestOptions): Promise<PolicyView> =>
  http.json(PolicyViewSchema, { method: 'PUT', path: '/v1/wallet/policy', body: policy }, options);

export const submitIntent = (http: Http, params: IntentParameters, options?: RequestOptions): Promise<IntentResult> =>
  http.json(IntentResult, { method: 'POST', path: '/v1/wallet/intent', body: params }, options);

/** Admin; only to an address on the policy's withdraw_allowlist. */
export const withdraw = (http: Http, params: WithdrawParameters, options?: RequestOptions): Promise<IntentResult> =>
  http.json(IntentResult, { method: 'POST', path: '/v1/wallet/withdraw', body: params }, options);

export const walletResource = (http: Http) => ({
  get: (options?: RequestOptions) => getWallet(http, options),
  policy: {
    get: (options?: RequestOptions) => getPolicy(http, options),
    set: (policy: PolicyDocument, options?: RequestOptions) => setPolicy(http, policy, options),
  },
  intent: (params: IntentParameters, options?: RequestOptions) => submitIntent(http, params, options),
  withdraw: (params: WithdrawParameters, options?: RequestOptions) => withdraw(http, params, options),
});
