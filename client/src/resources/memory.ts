// Memory keywords: list pinned and fading, pin (a repeat is a no-op 200), forget (404 once gone).
import { ForgetResult, MemoryListing, type PinRequest, PinResult } from '@presence/protocol';
import type { z } from 'zod';
import type { Http, RequestOptions } from '../http';

export type { MemoryListing } from '@presence/protocol';
export type PinParameters = z.input<typeof PinRequest>;
export type PinReturnType = z.infer<typeof PinResult>;
export type ForgetReturnType = z.infer<typeof ForgetResult>;

export const listMemory = (http: Http, options?: RequestOptions): Promise<MemoryListing> =>
  http.json(MemoryListing, { method: 'GET', path: '/v1/memory' }, options);

export const pinMemory = (http: Http, params: PinParameters, options?: RequestOptions): Promise<PinReturnType> =>
  http.json(PinResult, { method: 'POST', path: '/v1/memory/pin', body: params }, options);

/** `key` is `<namespace>:<name>`; the colon is escaped in the path. */
export const forgetMemory = (http: Http, key: string, options?: RequestOptions): Promise<ForgetReturnType> =>
  http.json(ForgetResult, { method: 'DELETE', path: `/v1/memory/${encodeURIComponent(key)}` }, options);

export const memoryResource = (http: Http) => ({
  list: (options?: RequestOptions) => listMemory(http, options),
  pin: (params: PinParameters, options?: RequestOptions) => pinMemory(http, params, options),
  forget: (key: string, options?: RequestOptions) => forgetMemory(http, key, options),
});
