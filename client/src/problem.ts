// Turns a non-2xx answer into a PresenceApiError. The server always sends problem+json,
// but proxies and load balancers in between do not, so anything else is mapped by status
// to a type through the protocol's problem catalogue, the table the server answers from.
// A 5xx the catalogue has no type for (504, say) came from something in between that could
// not reach the server: `unavailable`.
import { Problem, problemTypeForStatus } from '@presence/protocol';
import { PresenceApiError } from './errors';

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
      type: problemTypeForStatus(status) ?? (status >= 500 ? 'unavailable' : 'http_error'),
      title: statusText || `HTTP ${status}`,
      status,
      detail: snippet || `the server answered HTTP ${status} without a problem body`,
    },
    retryAfter,
  );
}
