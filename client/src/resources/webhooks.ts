// Webhook endpoints (admin): register one (its signing secret is in the answer, once), list,
// change, delete, rotate the secret (the old one signs beside the new for 24 h), send a test
// ping, read the deliveries log, replay from an event id. Receivers check requests with
// `verifyWebhook`.
import {
  WebhookCreated,
  type WebhookCreateRequest,
  WebhookDeliveryList,
  WebhookList,
  WebhookSecret,
  WebhookTestResult,
  type WebhookUpdateRequest,
  WebhookView,
} from '@presence/protocol';
import type { z } from 'zod';
import type { Http, RequestOptions } from '../http';

export type { WebhookCreated, WebhookDelivery, WebhookTestResult, WebhookView } from '@presence/protocol';
export type CreateWebhookParameters = z.input<typeof WebhookCreateRequest>;
export type UpdateWebhookParameters = z.input<typeof WebhookUpdateRequest>;
export type ListWebhooksReturnType = z.infer<typeof WebhookList>;
export type RotateWebhookSecretReturnType = z.infer<typeof WebhookSecret>;
export type WebhookDeliveriesReturnType = z.infer<typeof WebhookDeliveryList>;

const hookPath = (id: string) => `/v1/webhooks/${encodeURIComponent(id)}`;

export const webhooksResource = (http: Http) => ({
  create: (params: CreateWebhookParameters, options?: RequestOptions): Promise<WebhookCreated> =>
    http.json(WebhookCreated, { method: 'POST', path: '/v1/webhooks', body: params }, options),
  list: (options?: RequestOptions): Promise<ListWebhooksReturnType> =>
    http.json(WebhookList, { method: 'GET', path: '/v1/webhooks' }, options),
  get: (id: string, options?: RequestOptions): Promise<WebhookView> =>
    http.json(WebhookView, { method: 'GET', path: hookPath(id) }, options),
  update: (id: string, params: UpdateWebhookParameters, options?: RequestOptions): Promise<WebhookView> =>
    http.json(WebhookView, { method: 'PATCH', path: hookPath(id), body: params }, options),
  delete: (id: string, options?: RequestOptions): Promise<WebhookView> =>
    http.json(WebhookView, { method: 'DELETE', path: hookPath(id) }, options),
  rotateSecret: (id: string, options?: RequestOptions): Promise<RotateWebhookSecretReturnType> =>
    http.json(WebhookSecret, { method: 'POST', path: `${hookPath(id)}/rotate-secret` }, options),
  test: (id: string, options?: RequestOptions): Promise<WebhookTestResult> =>
    http.json(WebhookTestResult, { method: 'POST', path: `${hookPath(id)}/test` }, options),
  deliveries: (id: string, params: { limit?: number } = {}, options?: RequestOptions): Promise<WebhookDeliveriesReturnType> =>
    http.json(WebhookDeliveryList, { method: 'GET', path: `${hookPath(id)}/deliveries`, query: { limit: params.limit } }, options),
  replay: (id: string, sinceEventId: number, options?: RequestOptions): Promise<WebhookView> =>
    http.json(WebhookView, { method: 'POST', path: `${hookPath(id)}/replay`, body: { since_event_id: sinceEventId } }, options),
});
