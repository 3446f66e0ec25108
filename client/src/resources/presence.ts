// The presence this key resolves to: GET/PATCH /v1/presence/me.
import { type PresencePatch, PresenceView } from '@presence/protocol';
import type { z } from 'zod';
import type { Http, RequestOptions } from '../http';

export type GetMeReturnType = z.infer<typeof PresenceView>;
export type UpdateMeParameters = PresencePatch;

export const getMe = (http: Http, options?: RequestOptions): Promise<GetMeReturnType> =>
  http.json(PresenceView, { method: 'GET', path: '/v1/presence/me' }, options);

/** Needs admin. Changes name, route.model or preferences. */
export const updateMe = (http: Http, patch: UpdateMeParameters, options?: RequestOptions): Promise<GetMeReturnType> =>
  http.json(PresenceView, { method: 'PATCH', path: '/v1/presence/me', body: patch }, options);

export const presenceResource = (http: Http) => ({
  me: (options?: RequestOptions) => getMe(http, options),
  update: (patch: UpdateMeParameters, options?: RequestOptions) => updateMe(http, patch, options),
});
