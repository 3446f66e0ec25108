// Standing intents ("tell me when …", created by talking): list and cancel.
import { StandingList as StandingListSchema, StandingView as StandingViewSchema } from '@presence/protocol';
import type { z } from 'zod';
import type { Http, RequestOptions } from '../http';

export type StandingList = z.infer<typeof StandingListSchema>;
export type StandingView = z.infer<typeof StandingViewSchema>;

export const listStanding = (http: Http, options?: RequestOptions): Promise<StandingList> =>
  http.json(StandingListSchema, { method: 'GET', path: '/v1/standing' }, options);

/** Returns the cancelled intent (no longer armed). */
export const cancelStanding = (http: Http, id: string, options?: RequestOptions): Promise<StandingView> =>
  http.json(StandingViewSchema, { method: 'DELETE', path: `/v1/standing/${encodeURIComponent(id)}` }, options);

export const standingResource = (http: Http) => ({
  list: (options?: RequestOptions) => listStanding(http, options),
  cancel: (id: string, options?: RequestOptions) => cancelStanding(http, id, options),
});
