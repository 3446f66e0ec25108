// What a log line says of an error: kind, message, code and causes — the causes bounded, the
// root among them, every message redacted, no stack, and of a cause that is not an error or a
// string only its kind.
import { PresenceError } from '@presence/core';
import { describe, expect, it } from 'vitest';
import { causeChain, errorSummary, MAX_CAUSES } from './error-summary';

const SECRET = 'hunter2secretvalue';
const coded = (message: string, code: string | number, cause?: unknown) => Object.assign(new Error(message, { cause }), { code });

describe('errorSummary', () => {
  it("names a PresenceError's causes under it, the database's URL without its password", () => {
    const refused = coded(`connect ECONNREFUSED 10.0.0.5:5432 (postgres://presence:${SECRET}@10.0.0.5:5432/presence)`, 'ECONNREFUSED');
    const err = new PresenceError('store_unavailable', 'the database failed during a read (ECONNREFUSED)', { cause: refused });
    const summary = errorSummary(err);
    expect(summary).toEqual({
      type: 'store_unavailable',
      message: 'the database failed during a read (ECONNREFUSED)',
      cause: [{ type: 'Error', message: 'connect ECONNREFUSED 10.0.0.5:5432 (postgres://10.0.0.5:5432/…)', code: 'ECONNREFUSED' }],
    });
    expect(JSON.stringify(summary)).not.toContain(SECRET);
    expect(JSON.stringify(summary)).not.toContain('stack');
  });

  it('keeps the first cause and the root when the chain is longer than MAX_CAUSES', () => {
    let err: Error = coded('root: ECONNRESET', 'ECONNRESET');
    for (let i = 5; i >= 1; i--) err = new Error(`wrapper ${i}`, { cause: err });
    const top = new Error('top', { cause: err });
    const chain = causeChain(top);
    expect(chain).toHaveLength(MAX_CAUSES);
    expect(chain?.map((c) => c.message)).toEqual(['wrapper 1', 'wrapper 5', 'root: ECONNRESET']);
    expect(chain?.at(-1)).toMatchObject({ code: 'ECONNRESET' });
  });

  it('stops at a cycle, and says only the kind of a cause that is neither an error nor a string', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(causeChain(a)?.map((c) => c.message)).toEqual(['b']);
    expect(causeChain(new Error('x', { cause: { password: SECRET } }))).toEqual([{ type: 'Object' }]);
    expect(causeChain(new Error('x', { cause: `bad url https://h.example/${SECRET}` }))).toEqual([
      { type: 'string', message: 'bad url https://h.example/…' },
    ]);
    expect(causeChain(new Error('no cause'))).toBeUndefined();
  });

  it("redacts an error's own message, code kept, numeric JSON-RPC codes and HTTP statuses too", () => {
    const err = Object.assign(new Error(`GET https://api.example.com/v1?token=${SECRET} failed`), { code: -32005, status: 429 });
    expect(errorSummary(err)).toEqual({ type: 'Error', message: 'GET https://api.example.com/… failed', code: -32005, status: 429 });
  });

  it('redacts the strings of a plain object logged as an error, and drops its stack', () => {
    const summary = errorSummary({ type: 'x', detail: `at postgres://u:${SECRET}@db/x`, stack: 'Error\n at f (/srv/app.js:1)', n: 3 });
    expect(summary).toEqual({ type: 'x', detail: 'at postgres://db/…', n: 3 });
    // A summary made earlier reads the same through the serializer again.
    const made = errorSummary(new PresenceError('internal', 'x', { cause: coded(`https://h/${SECRET}`, 'E1') }));
    expect(errorSummary(made)).toEqual(made);
  });
});
