// What a log line may say about an error: its kind, message and code, and what caused it —
// never its stack (a stack names our files and can carry values from the frames that threw)
// and never a secret: every message goes through core's redactMessage, since the errors beneath ours
// (viem's, the database driver's, fetch's) name URLs, credentials and request bodies. Used by
// the production logger's serializer, by the error handler and by the crash line, whatever
// logger the app has.
import { isPresenceError, redactMessage } from '@presence/core';

/** The most causes a line names: the outermost, then the innermost (the root cause) before it. */
export const MAX_CAUSES = 3;

/** How deep a cause chain is followed to find its root (a cycle or an endless chain stops here). */
const MAX_DEPTH = 12;

/** How deep a plain object logged as an error is read; what lies deeper is left out. */
const MAX_FIELD_DEPTH = 3;

/** One error's kind, redacted message, and code (a string like ECONNREFUSED, or a JSON-RPC number). */
function facts(err: unknown): Record<string, unknown> {
  if (isPresenceError(err)) return { type: err.type, message: redactMessage(err.detail) };
  if (err instanceof Error) {
    const { code, status } = err as { code?: unknown; status?: unknown };
    return {
      type: err.constructor?.name ?? err.name,
      message: redactMessage(err.message),
      code: typeof code === 'string' || typeof code === 'number' ? code : undefined,
      // An HTTP status a client error carries (viem's HttpRequestError: 429, 503…).
      status: typeof status === 'number' ? status : undefined,
    };
  }
  if (typeof err === 'string') return { type: 'string', message: redactMessage(err) };
  // Anything else may hold anything (a request, a key): only its kind.
  return { type: err === null || typeof err !== 'object' ? String(err) : (err.constructor?.name ?? 'Object') };
}

/**
 * What caused `err`, outermost first, at most MAX_CAUSES: when the chain is longer, the first
 * cause and the last ones, since the root (ECONNREFUSED, a 429) is what an operator looks for
 * and the wrappers between (viem's call and contract errors) repeat it.
 */
export function causeChain(err: unknown): Record<string, unknown>[] | undefined {
  const chain: unknown[] = [];
  const seen = new Set<unknown>([err]);
  let next = (err as { cause?: unknown } | null | undefined)?.cause;
  while (next !== undefined && next !== null && !seen.has(next) && chain.length < MAX_DEPTH) {
    seen.add(next);
    chain.push(next);
    next = next instanceof Error ? next.cause : undefined;
  }
  if (chain.length === 0) return undefined;
  const kept = chain.length <= MAX_CAUSES ? chain : [chain[0], ...chain.slice(chain.length - (MAX_CAUSES - 1))];
  return kept.map(facts);
}

/** A plain object logged as an error, its strings redacted (it may be a summary made earlier). */
function redactFields(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactMessage(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_FIELD_DEPTH) return undefined;
  if (Array.isArray(value)) return value.map((v) => redactFields(v, depth + 1));
  const { stack: _stack, ...rest } = value as Record<string, unknown>;
  return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, redactFields(v, depth + 1)]));
}

/** What a log line says about an error: its kind, message, code and causes, redacted, without a stack. */
export function errorSummary(err: unknown): Record<string, unknown> {
  if (err instanceof Error) {
    const cause = causeChain(err);
    return cause ? { ...facts(err), cause } : facts(err);
  }
  if (err && typeof err === 'object') return redactFields(err, 0) as Record<string, unknown>;
  return { message: redactMessage(String(err)) };
}
