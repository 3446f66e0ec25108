// From an HTTP status back to a problem type, for answers that carry a status but no type:
// Fastify's own errors on the server, and a proxy's non-problem error body in the client.
// Derived from the catalogue, so the status of a type is written down once.
import { type ProblemType, problemCatalogue, problemTypes } from './problem-catalogue';

/**
 * The type that stands for a bare status when the catalogue has several for it (409, 503, …)
 * or may gain more (400). A status with one catalogue type and none listed here maps to that one.
 */
export const generalProblemTypes = [
  'invalid_request',
  'auth',
  'scope',
  'not_found',
  'method_not_allowed',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal',
  'unavailable',
] as const satisfies readonly ProblemType[];

/** The catalogue's type for a bare status, or undefined when it has none (or several and no general one). */
export function problemTypeForStatus(status: number): ProblemType | undefined {
  const types = problemTypes.filter((t) => problemCatalogue[t].status === status);
  const general = types.find((t) => (generalProblemTypes as readonly ProblemType[]).includes(t));
  return general ?? (types.length === 1 ? types[0] : undefined);
}
