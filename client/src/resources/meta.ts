// Public endpoints that need no key: liveness and the OpenAPI document.
import { Health } from '@presence/protocol';
import { z } from 'zod';
import type { Http, RequestOptions } from '../http';

export type HealthReturnType = z.infer<typeof Health>;

export const getHealth = (http: Http, options?: RequestOptions): Promise<HealthReturnType> =>
  http.json(Health, { method: 'GET', path: '/v1/health' }, options);

const OpenApiDocument = z.looseObject({ openapi: z.string() });
export const getOpenApi = (http: Http, options?: RequestOptions): Promise<z.infer<typeof OpenApiDocument>> =>
  http.json(OpenApiDocument, { method: 'GET', path: '/v1/openapi.json' }, options);

export const metaResource = (http: Http) => ({
  health: (options?: RequestOptions) => getHealth(http, options),
  openapi: (options?: RequestOptions) => getOpenApi(http, options),
});
