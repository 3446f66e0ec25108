// The one catalogue of problem types: every typed failure Presence can answer with, its HTTP
// status and its title. Types are stable strings clients branch on; never rename one.
export const problemCatalogue = {
  invalid_request: { status: 400, title: 'Invalid request' },
  auth: { status: 401, title: 'Authentication failed' },
  scope: { status: 403, title: 'Missing scope' },
  passkey_required: { status: 403, title: 'This hold is approved with a passkey' },
  passkey_refused: { status: 403, title: 'Passkey refused' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  request_timeout: { status: 408, title: 'Request timeout' },
  policy_block: { status: 409, title: 'Blocked by spend policy' },
  confirm_expired: { status: 409, title: 'Confirmation expired' },
  confirm_resolved: { status: 409, title: 'Confirmation already resolved' },
  idempotency_in_progress: { status: 409, title: 'Request with this Idempotency-Key is in progress' },
  conflict: { status: 409, title: 'Conflict' },
  chain_reverted: { status: 409, title: 'The chain refused to execute this' },
  chain_rejected: { status: 409, title: 'The node rejected the transaction' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  uri_too_long: { status: 414, title: 'URI too long' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  idempotency_mismatch: { status: 422, title: 'Idempotency-Key reused with a different request' },
  intent_unresolved: { status: 422, title: 'Intent could not be resolved' },
  rate_limited: { status: 429, title: 'Too many requests' },
  headers_too_large: { status: 431, title: 'Request header fields too large' },
  internal: { status: 500, title: 'Internal error' },
  model_unavailable: { status: 502, title: 'Model provider failed' },
  chain_unavailable: { status: 503, title: 'Chain unavailable' },
  store_unavailable: { status: 503, title: 'Store unavailable' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemType = keyof typeof problemCatalogue;

export const problemTypes = Object.keys(problemCatalogue) as ProblemType[];
