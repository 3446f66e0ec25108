// Which failures are the database's: those become a typed 503 `store_unavailable`, so a
// lost connection or a failed statement answers "try again", never a 500 with a stack.
// Failures of the caller's own code (an updater that throws, a record that is refused)
// pass through unchanged.
import postgres from 'postgres';
import { PresenceError } from '../../errors/presence-error';
import { STORE_READS } from '../store-operations';
import { sessionLost } from './database';

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

/**
 * `run` once more on another connection when the first failed because its connection was
 * gone (a terminated backend, a reset socket: the pool reconnects), then as store_unavailable.
 * Only for statements that may run twice: reads, and writes that are idempotent by their
 * shape (an upsert of the caller's own claim, a delete of it).
 */
export async function retryingLostConnection<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!sessionLost(e)) throw toStoreError(e, operation);
  }
  try {
    return await run();
  } catch (e) {
    throw toStoreError(e, operation);
  }
}

/**
 * Makes every operation of `store` answer the database's failures as store_unavailable (in
 * place). A read (store-operations.ts) that met a lost connection runs again once (the pool
 * has dropped the dead connection by then): a read cut by a restart, a failover or a terminated
 * backend costs a round trip, not the client a 503. Writes are never run again here: whether a
 * write whose connection died has committed is not known, so the caller's retry, under its
 * Idempotency-Key, decides. `retryReads: false` for the operations of a unit of work: its connection is the
 * unit's, and a read cut there cannot run again on another (the unit fails as a whole).
 */
export function mappingStoreErrors<S extends object>(store: S, { retryReads = true }: { retryReads?: boolean } = {}): S {
  for (const [name, op] of Object.entries(store) as [string, (...args: unknown[]) => Promise<unknown>][]) {
    (store as Record<string, unknown>)[name] =
      retryReads && STORE_READS.has(name)
        ? (...args: unknown[]) => retryingLostConnection(name, () => op(...args))
        : async (...args: unknown[]) => {
            try {
              return await op(...args);
            } catch (e) {
              throw toStoreError(e, name);
            }
          };
  }
  return store;
}
