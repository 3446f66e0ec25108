// One-time link codes: an admin makes a code, a surface (bot, extension) redeems it for its
// own key, so no secret is ever pasted into a chat.
import { LinkCode as LinkCodeSchema, type LinkRequest, type RedeemRequest, RedeemResult as RedeemResultSchema } from '@presence/protocol';
import type { z } from 'zod';
import type { Http, OptionalParamsAction, RequestOptions } from '../http';

export type LinkCode = z.infer<typeof LinkCodeSchema>;
export type CreateLinkParameters = z.input<typeof LinkRequest>;
export type RedeemLinkParameters = z.input<typeof RedeemRequest>;
export type RedeemLinkReturnType = z.infer<typeof RedeemResultSchema>;

export const createLink: OptionalParamsAction<CreateLinkParameters, LinkCode> = (http, params = {}, options) =>
  http.json(LinkCodeSchema, { method: 'POST', path: '/v1/links', body: params }, options);

/** Needs no key. A used or expired code is 404 not_found. The new key's secret is in `key`, once. */
export const redeemLink = (
  http: Http,
  code: string,
  params: RedeemLinkParameters,
  options?: RequestOptions,
): Promise<RedeemLinkReturnType> =>
  http.json(RedeemResultSchema, { method: 'POST', path: `/v1/links/${encodeURIComponent(code)}/redeem`, body: params }, options);

export const linksResource = (http: Http) => ({
  create: (params?: CreateLinkParameters, options?: RequestOptions) => createLink(http, params, options),
  redeem: (code: string, params: RedeemLinkParameters, options?: RequestOptions) => redeemLink(http, code, params, options),
});
