// API keys (admin): list without secrets, create and rotate (the secret is in the answer,
// once), revoke at once.
import { type CreateKeyRequest, KeyList, KeySecret, KeyView, type RotateKeyRequest } from '@presence/protocol';
import type { z } from 'zod';
import type { Http, RequestOptions } from '../http';

export type { KeySecret, KeyView } from '@presence/protocol';
export type ListKeysReturnType = z.infer<typeof KeyList>;
/** `kind` defaults to live on the server. */
export type CreateKeyParameters = z.input<typeof CreateKeyRequest>;
export type RotateKeyParameters = z.input<typeof RotateKeyRequest>;

const keyPath = (id: string) => `/v1/keys/${encodeURIComponent(id)}`;

export const listKeys = (http: Http, options?: RequestOptions): Promise<ListKeysReturnType> =>
  http.json(KeyList, { method: 'GET', path: '/v1/keys' }, options);

export const createKey = (http: Http, params: CreateKeyParameters, options?: RequestOptions): Promise<KeySecret> =>
  http.json(KeySecret, { method: 'POST', path: '/v1/keys', body: params }, options);

/** A new secret now; the old one keeps working until `grace_until` (default 900 s). */
export const rotateKey = (http: Http, id: string, params: RotateKeyParameters = {}, options?: RequestOptions): Promise<KeySecret> =>
  http.json(KeySecret, { method: 'POST', path: `${keyPath(id)}/rotate`, body: params }, options);

/** Immediate: the next request with that secret is 401 and its open streams close. */
export const revokeKey = (http: Http, id: string, options?: RequestOptions): Promise<KeyView> =>
  http.json(KeyView, { method: 'DELETE', path: keyPath(id) }, options);

/** Revokes the calling key itself (no admin scope needed): how a surface unlinks a user. */
export const revokeSelf = (http: Http, options?: RequestOptions): Promise<KeyView> =>
  http.json(KeyView, { method: 'DELETE', path: '/v1/keys/self' }, options);

export const keysResource = (http: Http) => ({
  list: (options?: RequestOptions) => listKeys(http, options),
  create: (params: CreateKeyParameters, options?: RequestOptions) => createKey(http, params, options),
  rotate: (id: string, params?: RotateKeyParameters, options?: RequestOptions) => rotateKey(http, id, params, options),
  revoke: (id: string, options?: RequestOptions) => revokeKey(http, id, options),
  revokeSelf: (options?: RequestOptions) => revokeSelf(http, options),
});
