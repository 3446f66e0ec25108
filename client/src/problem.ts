// Turns a non-2xx answer into a PresenceApiError. The server always sends problem+json,
// but proxies and load balancers in between do not, so anything else is mapped by status
// to the same stable types the server uses.
import { Problem } from '@presence/core/schemas';
import { PresenceApiError } from './errors';

const typeByStatus: Record<number, string> = {
  400: 'invalid_request',
  401: 'auth',
  403: 'scope',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  500: 'internal',
  502: 'unavailable',
  503: 'unavailable',
  504: 'unavailable',
};

export function problemError(status: number, statusText: string, body: string, retryAfter: number | undefined): PresenceApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const problem = Problem.safeParse(parsed);
  if (problem.success) return new PresenceApiError(problem.data, retryAfter);
  const snippet = body.replace(/\s+/g, ' ').trim().slice(0, 200);
  return new PresenceApiError(
    {
      type: typeByStatus[status] ?? (status >= 500 ? 'internal' : 'http_error'),
      title: statusText || `HTTP ${status}`,
      status,
      detail: snippet || `the server answered HTTP ${status} without a problem body`,
    },
    retryAfter,
  );
}
