// verifyWebhook against requests signed by the `standardwebhooks` package (nobody here wrote
// it): accepted as signed, with either of two signatures; refused when the body was changed,
// the timestamp is more than five minutes old (or ahead), the secret is another, or a header
// is missing.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { PresenceWebhookError, verifyWebhook } from './verify-webhook';

const secret = `whsec_${btoa('0123456789abcdef0123456789abcdef')}`;
const other = `whsec_${btoa('fedcba9876543210fedcba9876543210')}`;
const body = JSON.stringify({ id: 7, type: 'message', created_at: '2026-11-28T09:00:00.000Z', data: { text: 'hi' } });

function signed(at: Date, secrets = [secret], text = body) {
  const ts = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': 'evt_acct_7',
    'webhook-timestamp': String(ts),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign('evt_acct_7', at, text)).join(' '),
  };
}
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => (e instanceof PresenceWebhookError ? e.reason : e),
  );

describe('verifyWebhook', () => {
  it('accepts what standardwebhooks signed, from a Headers object or a plain one, with either secret of two', async () => {
    const now = new Date();
    expect(await verifyWebhook(secret, signed(now), body)).toMatchObject({ id: 7, type: 'message' });
    expect(await verifyWebhook(secret, new Headers(signed(now)), new TextEncoder().encode(body))).toMatchObject({ id: 7 });
    expect(await verifyWebhook(other, signed(now, [secret, other]), body)).toMatchObject({ id: 7 });
  });

  it('refuses a tampered body, a stale or future timestamp, a wrong secret and missing headers', async () => {
    const now = new Date();
    expect(await refusal(verifyWebhook(secret, signed(now), body.replace('hi', 'ho')))).toBe('signature');
    expect(await refusal(verifyWebhook(secret, signed(new Date(now.getTime() - 301_000)), body))).toBe('timestamp');
    expect(await refusal(verifyWebhook(secret, signed(new Date(now.getTime() + 302_000)), body))).toBe('timestamp');
    expect(await refusal(verifyWebhook(other, signed(now), body))).toBe('signature');
    const { 'webhook-signature': _, ...unsigned } = signed(now);
    expect(await refusal(verifyWebhook(secret, unsigned, body))).toBe('headers');
    const notEvent = JSON.stringify({ hello: 1 });
    expect(await refusal(verifyWebhook(secret, signed(now, [secret], notEvent), notEvent))).toBe('payload');
  });
});
