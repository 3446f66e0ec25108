// /v1/webhooks over HTTP (inject) on the real app and core, with a receiver on 127.0.0.1:
// the admin scope, strict bodies, the views and the secret shown once, the ping, the
// deliveries log, replay, rotation and deletion; problems for what is refused.
import { startWebhookReceiver, type WebhookReceiver } from '@presence/core/testing';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectGuarded, expectProblem, useRouteApp } from '../../test/route-fixture';
import { bearer, startTestApp, type TestApp } from '../../test/test-app';

let t: TestApp;
let receiver: WebhookReceiver;
beforeEach(async () => {
  t = await startTestApp();
  // Signatures carry the core's clock; the verifying library compares them with Date.now().
  t.clock.set(Date.now());
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await receiver.close();
  await t.close();
});

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, key = t.live) =>
  t.app.inject({ method, url, headers: bearer(key), ...(body === undefined ? {} : { payload: body as object }) });

describe('/v1/webhooks', () => {
  it('makes, shows, pings, logs, replays, rotates and deletes an endpoint', async () => {
    const made = await call('POST', '/v1/webhooks', { url: receiver.url, events: ['message'], description: 'backend' });
    expect(made.statusCode).toBe(201);
    const created = made.json();
    expect(created).toMatchObject({ url: receiver.url, events: ['message'], state: 'enabled', mode: 'live', cursor: 0 });
    expect(created.id).toMatch(/^wh_/);
    const list = (await call('GET', '/v1/webhooks')).json();
    expect(list.webhooks).toHaveLength(1);
    expect(JSON.stringify(list)).not.toContain(created.secret);

    const ping = await call('POST', `/v1/webhooks/${created.id}/test`);
    expect(ping.json()).toMatchObject({ delivered: true, status: 200 });
    const hook = await receiver.next();
    expect(new Webhook(created.secret).verify(hook.body, hook.headers)).toMatchObject({ type: 'ping', id: 0 });

    await t.core.events.emit({ accountId: 'default', kind: 'live' }, 'message', { text: 'hi', cause: 'standing:x' });
    const sent = await receiver.next();
    expect(new Webhook(created.secret).verify(sent.body, sent.headers)).toMatchObject({ id: 1, type: 'message', data: { text: 'hi' } });
    await t.core.webhooks?.dispatcher.settled();
    const log = (await call('GET', `/v1/webhooks/${created.id}/deliveries?limit=5`)).json();
    expect(log.deliveries.map((d: { type: string; outcome: string }) => [d.type, d.outcome])).toEqual([
      ['message', 'delivered'],
      ['ping', 'delivered'],
    ]);

    const scrape = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(scrape).toContain('presence_webhook_delivery_seconds_count{outcome="delivered"} 2');
    expect(scrape).toContain('presence_webhook_backlog_events');

    const replay = await call('POST', `/v1/webhooks/${created.id}/replay`, { since_event_id: 0 });
    expect(replay.json()).toMatchObject({ cursor: 0 });
    expect((await receiver.next()).headers['webhook-id']).toBe(sent.headers['webhook-id']);
    // Past the newest event (#1) the cursor would skip the events still to come: refused, unmoved.
    await t.core.webhooks?.dispatcher.settled();
    const ahead = await call('POST', `/v1/webhooks/${created.id}/replay`, { since_event_id: 40 });
    expect([ahead.statusCode, ahead.json().type]).toEqual([400, 'invalid_request']);
    expect((await call('GET', `/v1/webhooks/${created.id}`)).json()).toMatchObject({ cursor: 1 });

    const rotated = (await call('POST', `/v1/webhooks/${created.id}/rotate-secret`)).json();
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);

    const patched = await call('PATCH', `/v1/webhooks/${created.id}`, { state: 'disabled' });
    expect(patched.json()).toMatchObject({ state: 'disabled', disabled_reason: 'by_request' });
    expect((await call('DELETE', `/v1/webhooks/${created.id}`)).statusCode).toBe(200);
    expect((await call('GET', `/v1/webhooks/${created.id}`)).json()).toMatchObject({ type: 'not_found', status: 404 });
  });

  it('refuses unknown fields, bad URLs and ids, and keys without the admin scope', async () => {
    const strict = await call('POST', '/v1/webhooks', { url: receiver.url, colour: 'blue' });
    expect(strict.statusCode).toBe(400);
    expect(strict.json().type).toBe('invalid_request');
    expect((await call('POST', '/v1/webhooks', { url: 'ftp://x.example/' })).json()).toMatchObject({
      type: 'invalid_request',
      status: 400,
    });
    expect((await call('POST', '/v1/webhooks', { url: receiver.url, events: ['nope'] })).statusCode).toBe(400);
    expect((await call('GET', '/v1/webhooks/nope')).statusCode).toBe(400);
    expect((await call('PATCH', '/v1/webhooks/wh_0000000000000000', { state: 'paused' })).statusCode).toBe(400);
    expect((await call('GET', '/v1/webhooks/wh_0000000000000000')).statusCode).toBe(404);
    const talk = (await call('POST', '/v1/keys', { kind: 'live', name: 'talker', scopes: ['talk'] })).json();
    expect((await call('GET', '/v1/webhooks', undefined, talk.secret)).json()).toMatchObject({ type: 'scope', status: 403 });
  });
});

describe('/v1/webhooks problems', () => {
  const f = useRouteApp();
  const unknown = '/v1/webhooks/wh_0000000000000000';

  it('needs a key with admin on every route', async () => {
    await expectGuarded(f, 'GET', '/v1/webhooks', ['talk', 'wallet:act']);
    await expectGuarded(f, 'POST', '/v1/webhooks', ['wallet:read'], { url: 'https://hooks.example/' });
    await expectGuarded(f, 'DELETE', unknown, ['memory:write']);
  });

  it('refuses a bad log query or replay with 400, and answers an unknown endpoint 404 not_found', async () => {
    expectProblem(await f.call('GET', `${unknown}/deliveries?limit=0`), 400, 'invalid_request');
    expectProblem(await f.call('POST', `${unknown}/replay`, { body: { since_event_id: -1 } }), 400, 'invalid_request');
    expectProblem(await f.call('GET', `${unknown}/deliveries`), 404, 'not_found');
    expectProblem(await f.call('POST', `${unknown}/rotate-secret`, { body: {} }), 404, 'not_found');
    expectProblem(await f.call('DELETE', unknown), 404, 'not_found');
  });
});
