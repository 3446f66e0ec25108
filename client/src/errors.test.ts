import { expect, it } from 'vitest';
import {
  isPresenceClientError,
  isPresenceError,
  PresenceApiError,
  PresenceClientError,
  PresenceError,
  PresenceNetworkError,
  PresenceProtocolError,
} from './index';

it('every SDK error is a PresenceClientError; the old name still catches them', () => {
  const errors = [
    new PresenceApiError({ type: 'scope', title: 'Missing scope', status: 403, detail: 'needs admin' }),
    new PresenceNetworkError('timeout', 'no answer'),
    new PresenceProtocolError('bad body', 200),
  ];
  for (const e of errors) {
    expect(e).toBeInstanceOf(PresenceClientError);
    expect(isPresenceClientError(e)).toBe(true);
    expect(e).toBeInstanceOf(PresenceError);
    expect(isPresenceError(e)).toBe(true);
  }
  expect(isPresenceClientError(new Error('x'))).toBe(false);
  expect(PresenceError).toBe(PresenceClientError);
});

it('an API error carries the request id of the problem it came from', () => {
  const e = new PresenceApiError({ type: 'internal', title: 'Internal error', status: 500, detail: 'x', request_id: 'req-42' });
  expect([e.requestId, e.problem.request_id]).toEqual(['req-42', 'req-42']);
  expect(new PresenceApiError({ type: 'scope', title: 'Missing scope', status: 403, detail: 'x' }).requestId).toBeUndefined();
});
