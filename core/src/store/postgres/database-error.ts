// Which failures are the database's: those become a typed 503 `store_unavailable`, so a
// lost connection or a failed statement answers "try again", never a 500 with a stack.
// Failures of the caller's own code (an updater that throws, a record that is refused)
// pass through unchanged.
import postgres from 'postgres';
import { PresenceError } from '../../errors/presence-error';

/** Wraps an error thrown by a caller's updater, so it crosses the transaction untouched. */
export class CallerError {
  constructor(readonly error: unknown) {}
}

/** The driver's errors: what the server answered, and connection or socket failures. */
export function isDatabaseError(e: unknown): boolean {
  if (e instanceof postgres.PostgresError) return true;
  // Connection errors (CONNECTION_CLOSED, CONNECT_TIMEOUT…) and socket errors (ECONNREFUSED…)
  // carry a string code; errors raised by this adapter or by callers do not.
  return e instanceof Error && typeof (e as { code?: unknown }).code === 'string';
}

export function toStoreError(e: unknown, operation: string): unknown {
  if (e instanceof CallerError) return e.error;
  if (!isDatabaseError(e)) return e;
  const code = (e as { code: string }).code;
  return new PresenceError('store_unavailable', `the database failed during ${operation} (${code})`, { retryAfter: 1, cause: e });
}

/** Makes every operation of `store` answer the database's failures as store_unavailable (in place). */
export function mappingStoreErrors<S extends object>(store: S): S {
  for (const [name, op] of Object.entries(store) as [string, (...args: unknown[]) => Promise<unknown>][]) {
    (store as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      try {
        return await op(...args);
      } catch (e) {
        throw toStoreError(e, name);
      }
    };
  }
  return store;
}
