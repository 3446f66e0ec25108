// Held actions: list them, read one, approve or deny one — the only way a needs_confirm is resolved.
// The same answer again is idempotent; the opposite one after resolution is 409 confirm_resolved,
// after the timeout 409 confirm_expired.
import {
  ConfirmationList as ConfirmationListSchema,
  type ConfirmationView,
  ConfirmationView as ConfirmationViewSchema,
  ConfirmResult,
  type ConfirmStatus,
} from '@presence/protocol';
import type { z } from 'zod';
import type { Http, OptionalParamsAction, RequestOptions } from '../http';

export type { ConfirmationView, ConfirmResult } from '@presence/protocol';
export type ConfirmationList = z.infer<typeof ConfirmationListSchema>;
/** `limit`: how many of the newest (default 50, at most 200), listed oldest first. */
export type ListConfirmationsParameters = { status?: z.infer<typeof ConfirmStatus>; limit?: number };

export const listConfirmations: OptionalParamsAction<ListConfirmationsParameters, ConfirmationList> = (http, query = {}, options) =>
  http.json(ConfirmationListSchema, { method: 'GET', path: '/v1/confirm', query }, options);

export const getConfirmation = (http: Http, id: string, options?: RequestOptions): Promise<ConfirmationView> =>
  http.json(ConfirmationViewSchema, { method: 'GET', path: `/v1/confirm/${encodeURIComponent(id)}` }, options);

export const answerConfirmation = (
  http: Http,
  id: string,
  params: { approve: boolean },
  options?: RequestOptions,
): Promise<ConfirmResult> =>
  http.json(ConfirmResult, { method: 'POST', path: `/v1/confirm/${encodeURIComponent(id)}`, body: params }, options);

export const confirmResource = (http: Http) => ({
  list: (query?: ListConfirmationsParameters, options?: RequestOptions) => listConfirmations(http, query, options),
  get: (id: string, options?: RequestOptions) => getConfirmation(http, id, options),
  answer: (id: string, params: { approve: boolean }, options?: RequestOptions) => answerConfirmation(http, id, params, options),
  approve: (id: string, options?: RequestOptions) => answerConfirmation(http, id, { approve: true }, options),
  deny: (id: string, options?: RequestOptions) => answerConfirmation(http, id, { approve: false }, options),
});
