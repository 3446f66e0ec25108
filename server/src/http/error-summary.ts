// What a log line may say about an error: its kind, message and code — never its stack (a
// stack names our files and can carry values from the frames that threw). Used by the
// production logger's serializer and by the error handler, whatever logger the app has.
import { isPresenceError } from '@presence/core';

/** What a log line says about an error: its kind, message and code, without its stack. */
export function errorSummary(err: unknown): Record<string, unknown> {
  if (isPresenceError(err)) return { type: err.type, message: err.detail };
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return { type: err.constructor?.name ?? err.name, message: err.message, code: typeof code === 'string' ? code : undefined };
  }
  if (err && typeof err === 'object') {
    const { stack: _stack, ...rest } = err as Record<string, unknown>;
    return rest;
  }
  return { message: String(err) };
}
