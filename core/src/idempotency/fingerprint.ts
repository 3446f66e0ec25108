// What makes two requests under one Idempotency-Key "the same request": the method, the path
// and the body's JSON *value*, not its bytes. Object keys are sorted (recursively) before
// hashing, so a retry whose serializer wrote the keys in another order replays the first
// answer instead of being refused as a different request; arrays keep their order, and
// numbers and strings count as parsed (1.0 and 1 are one number, as they were before).
// Fingerprints carry a version prefix (`v2:`). The first fingerprints had none and hashed
// the body as the server re-serialized it (key order as sent); an answer stored under one of
// those still replays for a retry sent exactly as before (see `legacy`), so an upgrade
// refuses no retry that the old server would have replayed.
import { createHash } from 'node:crypto';

const VERSION = 'v2';

/** A request's fingerprint, and the unversioned one it had before (for answers stored then). */
export type RequestFingerprint = { value: string; legacy: string };

const sha256 = (...parts: string[]) => createHash('sha256').update(parts.join('\0')).digest('hex');

/** Objects with their keys sorted, recursively; everything else as it is. */
const sortedKeys = (_key: string, v: unknown) =>
  v !== null && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : v;

/** The body as canonical JSON: one string for one JSON value, whatever order its keys came in. */
export const canonicalJson = (body: unknown): string => (body === undefined ? '' : JSON.stringify(body, sortedKeys));

/** The fingerprint of a request: its method, its path (with any query) and its parsed JSON body. */
export function fingerprintRequest(method: string, path: string, body: unknown): RequestFingerprint {
  return {
    value: `${VERSION}:${sha256(method, path, canonicalJson(body))}`,
    legacy: sha256(method, path, body === undefined ? '' : JSON.stringify(body)),
  };
}

/** Whether a fingerprint stored (or held in a lease) is this request's, in either version. */
export const sameRequest = (stored: string, fp: RequestFingerprint) => stored === fp.value || stored === fp.legacy;
