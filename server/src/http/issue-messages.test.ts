// The words of the error map on their own, for shapes no route's test reaches easily.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldLabel, issueMessages, type RequestPart } from './issue-messages';

const detail = (schema: z.ZodType, value: unknown, part: RequestPart = 'body') => {
  const { map, final } = issueMessages(part);
  const r = schema.safeParse(value, { error: map });
  return r.success ? null : r.error.issues.map(final);
};

describe('issue messages', () => {
  it('write a path as a person reads it', () => {
    expect(fieldLabel(['deny', 0, 'token'])).toBe('deny[0].token');
    expect(fieldLabel([])).toBe('');
  });

  it('say a number range, a required field, a tag of a discriminated union, a list bound', () => {
    const S = z.strictObject({
      n: z.number().int().min(0).optional(),
      f: z.number().max(2).optional(),
      t: z.discriminatedUnion('kind', [z.object({ kind: z.literal('price') }), z.object({ kind: z.literal('time') })]).optional(),
      list: z.array(z.string()).min(1).optional(),
      name: z.string(),
    });
    expect(detail(S, { n: -1, f: 3, t: { kind: 'x' }, list: [] })).toEqual([
      '`n` must be a whole number, at least 0',
      '`f` must be a number, at most 2',
      '`t.kind` must be one of `price`, `time`',
      '`list` must have at least 1 item',
      '`name` is required',
    ]);
  });

  it('name unknown fields and query parameters, but never repeat what is not a name', () => {
    const S = z.strictObject({ a: z.string().optional() });
    expect(detail(S, { b: 1, c: 2 })).toEqual(['unknown fields `b`, `c`']);
    expect(detail(S, { limt: '5' }, 'querystring')).toEqual(['unknown query parameter `limt`']);
    expect(detail(S, { prs_live_0123456789abcdefghij0123456789abcdefghij: '' }, 'querystring')?.[0]).not.toContain('prs_live');
    expect(detail(S, { ok: 1, ABCDEFGHJKLMNPQRSTUV: '' }, 'querystring')).toEqual(['unknown query parameters `ok` and others']);
    // A link code typed in lowercase (redeeming takes it so) looks like a name but is not one.
    expect(detail(S, { abcdefghjk23456789mn: '' }, 'querystring')?.[0]).not.toContain('abcdefghjk');
    expect(detail(S, { since_event_idx: '' }, 'querystring')).toEqual(['unknown query parameter `since_event_idx`']);
  });

  it("keep a schema's own message, with its field first, and never quote the value sent", () => {
    const S = z.object({ to: z.string().regex(/^0x/, 'an address starts with 0x') });
    expect(detail(S, { to: 'secret-value' })).toEqual(['`to`: an address starts with 0x']);
    expect(detail(z.object({ k: z.enum(['a', 'b']) }), { k: 'secret-value' })?.[0]).not.toContain('secret-value');
  });
});
