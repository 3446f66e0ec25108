// The in-memory intent indexes follow every version of a record: a released Idempotency-Key
// no longer finds its old record (a retry plans afresh), a confirm id finds its record in any
// state, and the spend counts each record once, where its latest version says.
import { describe, expect, it } from 'vitest';
import { intentRecord as record } from '../../testing/fixtures';
import { createIntentIndex } from './intent-index';

describe('intent index', () => {
  it('finds by Idempotency-Key until the key is released, then finds the record that reuses it', () => {
    const ix = createIntentIndex();
    ix.put(record('in_1', 10, { idempotency_key: 'k' }));
    expect(ix.byIdempotencyKey('k')?.id).toBe('in_1');
    ix.put(record('in_1', 10, { idempotency_key: null, state: 'failed' }));
    expect(ix.byIdempotencyKey('k')).toBeNull();
    ix.put(record('in_2', 20, { idempotency_key: 'k' }));
    expect(ix.byIdempotencyKey('k')?.id).toBe('in_2');
    // A later version of the first record (still keyless) does not take the key back.
    ix.put(record('in_1', 10, { idempotency_key: null, state: 'failed', error: 'x' }));
    expect(ix.byIdempotencyKey('k')?.id).toBe('in_2');
  });

  it('finds by confirm id, always the newest version', () => {
    const ix = createIntentIndex();
    ix.put(record('in_1', 10, { state: 'held', confirm_id: 'cf_1' }));
    ix.put(record('in_1', 10, { state: 'done', confirm_id: 'cf_1' }));
    expect(ix.byConfirmId('cf_1')?.state).toBe('done');
    expect(ix.byConfirmId('cf_2')).toBeNull();
  });

  it('lists records in creation order, filtered by state; a new version keeps its place', () => {
    const ix = createIntentIndex();
    for (const id of ['in_1', 'in_2', 'in_3']) ix.put(record(id, 100));
    ix.put(record('in_2', 100, { state: 'held', confirm_id: 'cf_2' }));
    expect(ix.list().map((r) => `${r.id}:${r.state}`)).toEqual(['in_1:executing', 'in_2:held', 'in_3:executing']);
    expect(ix.list({ states: ['executing'] }).map((r) => r.id)).toEqual(['in_1', 'in_3']);
    expect(ix.list({ last: 2 }).map((r) => r.id)).toEqual(['in_2', 'in_3']);
    expect(ix.list({ confirmable: true }).map((r) => r.id)).toEqual(['in_2']);
    expect(ix.byId.size).toBe(3);
  });

  it('keeps the spend: in flight by last change, done by execution time, failed ones refunded', () => {
    const ix = createIntentIndex();
    const usd = (n: number) => (BigInt(n) * 10n ** 18n).toString();
    ix.put(record('in_1', 100, { value_usd: usd(5), state: 'done', executed_at: 150 }));
    ix.put(record('in_2', 200, { value_usd: usd(7) })); // executing, updated_at 200
    ix.put(record('in_3', 210, { value_usd: usd(11), state: 'held' })); // held: not spent
    expect(ix.spentSince(0)).toBe(10n ** 18n * 12n);
    expect(ix.spentSince(151)).toBe(10n ** 18n * 7n);
    ix.put(record('in_2', 200, { value_usd: usd(7), state: 'signed', updated_at: 220 }));
    ix.put(record('in_3', 210, { value_usd: usd(11), state: 'executing', updated_at: 230 }));
    expect(ix.spentSince(0)).toBe(10n ** 18n * 23n);
    ix.put(record('in_2', 200, { value_usd: usd(7), state: 'done', executed_at: 240, updated_at: 240 }));
    ix.put(record('in_3', 210, { value_usd: usd(11), state: 'failed', updated_at: 250 }));
    expect(ix.spentSince(0)).toBe(10n ** 18n * 12n);
    expect(ix.spentSince(240)).toBe(10n ** 18n * 7n);
    expect(ix.spentSince(241)).toBe(0n);
    // A done record executed earlier than one already counted (a clock that stepped back),
    // and a rewrite of a done record, count once each.
    ix.put(record('in_4', 90, { value_usd: usd(100), state: 'done', executed_at: 120 }));
    ix.put(record('in_4', 90, { value_usd: usd(100), state: 'done', executed_at: 120, updated_at: 300 }));
    expect(ix.spentSince(0)).toBe(10n ** 18n * 112n);
    expect(ix.spentSince(121)).toBe(10n ** 18n * 12n);
  });
});
