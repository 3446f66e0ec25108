// Idempotency-Key values. One random key per logical call, reused by every retry of that
// call, so the server answers a retry with the stored result instead of acting twice.
// `crypto.randomUUID` is a web API (Node 20, browsers, extension workers): no node:crypto.

export const newIdempotencyKey = (): string => globalThis.crypto.randomUUID();
