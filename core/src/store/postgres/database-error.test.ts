// How the database's failures reach callers: as 503 store_unavailable with Retry-After, never a
// bare driver error (a 500), and a read whose connection was lost is run once more first.
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { PresenceError } from '../../errors/presence-error';
import { CallerError, mappingStoreErrors, retryingLostConnection } from './database-error';

/** A driver failure as postgres.js raises it when the connection is gone. */
const lost = () => Object.assign(new Error('write CONNECTION_CLOSED 127.0.0.1:5432'), { code: 'CONNECTION_CLOSED' });
/** A statement the server refused on a live connection (a unique violation). */
const refused = () => new postgres.PostgresError({ message: 'duplicate key value', code: '23505' } as never);

/** An operation that fails with each of `failures` in turn, then answers `value`; counts its runs. */
function failing<T>(value: T, ...failures: Error[]) {
  const op = async () => {
    op.runs++;
    const f = failures.shift();
    if (f) throw f;
    return value;
  };
  op.runs = 0;
  return op;
}

describe('retryingLostConnection', () => {
  it('runs again once after a lost connection, and answers what the second run answers', async () => {
    const op = failing('rows', lost());
    await expect(retryingLostConnection('read', op)).resolves.toBe('rows');
    expect(op.runs).toBe(2);
  });

  it('answers a second loss as store_unavailable with a retry-after', async () => {
    const op = failing('rows', lost(), lost());
    const e = await retryingLostConnection('read', op).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PresenceError);
    expect(e).toMatchObject({ type: 'store_unavailable', retryAfter: 1 });
    expect(op.runs).toBe(2);
  });

  it('does not run again what the server refused on a live connection', async () => {
    const op = failing('rows', refused());
    await expect(retryingLostConnection('read', op)).rejects.toMatchObject({ type: 'store_unavailable' });
    expect(op.runs).toBe(1);
  });

  it("passes the caller's own error through untouched", async () => {
    const mine = new Error('the updater refused');
    const op = failing('rows', new CallerError(mine) as unknown as Error);
    await expect(retryingLostConnection('read', op)).rejects.toBe(mine);
  });
});

describe('mappingStoreErrors', () => {
  it('runs a read again after a lost connection, never a write; both answer store_unavailable, not the driver error', async () => {
    const getKey = failing(null, lost());
    const insertKey = failing(undefined, lost());
    const store = mappingStoreErrors({ getKey, insertKey });
    await expect(store.getKey()).resolves.toBeNull();
    expect(getKey.runs).toBe(2);
    // Whether a write met by a lost connection committed is not known: the client's retry decides.
    await expect(store.insertKey()).rejects.toMatchObject({ type: 'store_unavailable' });
    expect(insertKey.runs).toBe(1);
  });
});
