// The account's passkeys: a one-time link to the server's Add passkey page, the list, and
// removing one. A hold over the policy's passkey_over is approved only on its `approve_url`
// page with one of them; `confirm.approve` on it fails with `passkey_required` (a
// PresenceApiError whose problem carries `approve_url`), and `deny` works as always.
import { EnrollLink, type EnrollLinkRequest, PasskeyList as PasskeyListSchema } from '@presence/protocol';
import { z } from 'zod';
import type { Http, OptionalParamsAction, RequestOptions } from '../http';

export type { PasskeyView } from '@presence/protocol';
export type PasskeyList = z.infer<typeof PasskeyListSchema>;
export type EnrollPasskeyParameters = z.input<typeof EnrollLinkRequest>;
export type EnrollPasskeyReturnType = z.infer<typeof EnrollLink>;

export const enrollPasskey: OptionalParamsAction<EnrollPasskeyParameters, EnrollPasskeyReturnType> = (http, params = {}, options) =>
  http.json(EnrollLink, { method: 'POST', path: '/v1/passkeys/enroll', body: params }, options);

export const listPasskeys = (http: Http, options?: RequestOptions): Promise<PasskeyList> =>
  http.json(PasskeyListSchema, { method: 'GET', path: '/v1/passkeys' }, options);

export const removePasskey = (http: Http, id: string, options?: RequestOptions): Promise<void> =>
  http.json(z.undefined(), { method: 'DELETE', path: `/v1/passkeys/${encodeURIComponent(id)}` }, options);

export const passkeysResource = (http: Http) => ({
  enroll: (params?: EnrollPasskeyParameters, options?: RequestOptions) => enrollPasskey(http, params, options),
  list: (options?: RequestOptions) => listPasskeys(http, options),
  remove: (id: string, options?: RequestOptions) => removePasskey(http, id, options),
});
