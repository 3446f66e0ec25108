// The events stream: replay after Last-Event-ID with no gap and no duplicate, including
// events emitted while the client reconnects; retention gaps; per-scope filtering;
// heartbeats; revocation and rotation grace closing live streams.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createManualClock, openStream, removeDir, startTestServer, type TestServer } from './harness';

describe('GET /v1/events', () => {
  const clock = createManualClock(Date.now());
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ clock, heartbeatMs: 200 });
  });
  afterAll(async () => {
    await s.close();
    removeDir(s.dataDir);
  });

  const emit = (i: number) => s.core.events.emit({ accountId: 'default', kind: 'live' }, 'memory', { key: `topic:e${i}`, tier: 'fading' });
  const ids = (frames: { id?: string }[]) => frames.filter((f) => f.id).map((f) => Number(f.id));

  it('1,000 events, a drop at a random id, a reconnect: every later id once and in order', async () => {
    const { latest: base } = await s.core.events.bounds({ accountId: 'default', kind: 'live' });
    const first = openStream(s.url, `/v1/events?last_event_id=${base}`, s.live);
    await first.until(() => first.status === 200);
    const emitting = (async () => {
      for (let i = 0; i < 1000; i++) {
        await emit(i);
        if (i % 50 === 0) await new Promise((r) => setImmediate(r));
      }
    })();
    const cut = 100 + Math.floor(Math.random() * 600);
    await first.until(() => first.frames.length >= cut);
    await first.close();
    const seen = ids(first.frames);
    const lastSeen = seen.at(-1) as number;
    // Reconnect while events are still being emitted.
    const second = openStream(s.url, '/v1/events', s.live, { 'last-event-id': String(lastSeen) });
    await emitting;
    await second.until(() => ids(second.frames).at(-1) === base + 1000);
    await second.close();
    const all = [...seen, ...ids(second.frames)];
    expect(all).toEqual(Array.from({ length: 1000 }, (_, i) => base + 1 + i));
  });

  it('without Last-Event-ID it streams live only; with 0 it replays what is kept', async () => {
    const { latest } = await s.core.events.bounds({ accountId: 'default', kind: 'live' });
    const live = openStream(s.url, '/v1/events', s.live);
    await live.until(() => live.cursors.length === 1);
    // An id-only frame first, so a client dropping before any event can resume from here.
    expect(live.cursors).toEqual([latest]);
    const e = await emit(5000);
    await live.until(() => live.frames.length >= 1);
    expect(live.frames.map((f) => Number(f.id))).toEqual([e.id]);
    expect(live.frames[0]?.data).toMatchObject({ key: 'topic:e5000', tier: 'fading' });
    expect(typeof live.frames[0]?.data.at).toBe('string');
    await live.close();
  });

  it('sends heartbeat comments', async () => {
    const st = openStream(s.url, '/v1/events', s.live);
    await st.until(() => st.comments.includes('heartbeat'), 3000);
    await st.close();
  });

  it('delivers each type only to keys holding its scope', async () => {
    const mk = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'talker', scopes: ['talk'] } });
    const talker = openStream(s.url, '/v1/events', mk.json.secret);
    const reader = openStream(s.url, '/v1/events', s.live);
    // The opening cursor frame: each stream is subscribed.
    await Promise.all([talker.until(() => talker.cursors.length === 1), reader.until(() => reader.cursors.length === 1)]);
    await emit(1);
    const msg = await s.core.events.emit({ accountId: 'default', kind: 'live' }, 'message', { text: 'hi', cause: 'standing:st_1' });
    // A marker both may see, after them: a stream delivers in order, so once the talker has
    // it, a `memory` event it should not see would have come before it.
    const marker = await s.core.events.emit({ accountId: 'default', kind: 'live' }, 'message', { text: 'marker', cause: 'standing:st_2' });
    await reader.until(() => ids(reader.frames).includes(marker.id));
    await talker.until(() => ids(talker.frames).includes(marker.id));
    expect(talker.frames.map((f) => f.event)).toEqual(['message', 'message']);
    expect(ids(talker.frames)).toEqual([msg.id, marker.id]);
    expect(reader.frames.map((f) => f.event)).toEqual(['memory', 'message', 'message']);
    await Promise.all([talker.close(), reader.close()]);
  });

  it('a test key sees only its sandbox', async () => {
    const t = openStream(s.url, '/v1/events?last_event_id=0', s.test);
    await t.until(() => t.status === 200);
    await call(s.url, 'POST', '/v1/memory/pin', { key: s.test, body: { key: 'token:WETH' } });
    await emit(2);
    // A sandbox event after them: once it arrives, a live one would have arrived before it.
    const marker = await s.core.events.emit({ accountId: 'default', kind: 'test' }, 'message', {
      text: 'marker',
      cause: 'standing:st_test',
    });
    await t.until(() => t.frames.length >= 1);
    expect(t.frames.map((f) => [f.event, Number(f.id)])).toEqual([['message', marker?.id]]);
    await t.close();
  });

  it('revoking a key closes its open stream at once', async () => {
    const mk = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'doomed', scopes: ['talk'] } });
    const st = openStream(s.url, '/v1/events', mk.json.secret);
    await st.until(() => st.status === 200);
    await call(s.url, 'DELETE', `/v1/keys/${mk.json.id}`, { key: s.live });
    await st.until(() => st.ended, 2000);
    const again = await call(s.url, 'GET', '/v1/events', { key: mk.json.secret });
    expect(again.status).toBe(401);
  });

  it('a stream opened with a rotated-away secret ends when the grace window does', async () => {
    const mk = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'rotating', scopes: ['talk'] } });
    await call(s.url, 'POST', `/v1/keys/${mk.json.id}/rotate`, { key: s.live, body: { grace_s: 1 } });
    // The server reads time from the driven clock; the grace timer is a real one.
    const st = openStream(s.url, '/v1/events', mk.json.secret);
    await st.until(() => st.ended, 5000);
    expect(st.status).toBe(200);
  });

  it('a stream opened before a rotation ends when the grace window does; the new secret stream stays', async () => {
    const mk = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'rotating-later', scopes: ['talk'] } });
    const old = openStream(s.url, '/v1/events', mk.json.secret);
    await old.until(() => old.cursors.length === 1);
    const rotated = await call(s.url, 'POST', `/v1/keys/${mk.json.id}/rotate`, { key: s.live, body: { grace_s: 1 } });
    expect(rotated.status).toBe(200);
    const fresh = openStream(s.url, '/v1/events', rotated.json.secret);
    await fresh.until(() => fresh.cursors.length === 1);
    // The old secret still works during the grace window, and so does its stream: it delivers.
    const during = await s.core.events.emit({ accountId: 'default', kind: 'live' }, 'message', {
      text: 'during the grace',
      cause: 'standing:st_3',
    });
    await old.until(() => ids(old.frames).includes(during.id));
    expect(old.ended).toBe(false);
    await old.until(() => old.ended, 5000);
    // After the old stream ended, the new one still delivers.
    const after = await s.core.events.emit({ accountId: 'default', kind: 'live' }, 'message', {
      text: 'after the grace',
      cause: 'standing:st_4',
    });
    await fresh.until(() => ids(fresh.frames).includes(after.id));
    expect(fresh.ended).toBe(false);
    // Revocation still closes at once whatever secret opened the stream.
    clock.advance(1_000); // the server's clock is driven; its grace timers are real ones
    const second = openStream(s.url, '/v1/events', mk.json.secret);
    await second.until(() => second.ended, 2000); // the grace is over: refused
    expect(second.status).toBe(401);
    await call(s.url, 'DELETE', `/v1/keys/${mk.json.id}`, { key: s.live });
    await fresh.until(() => fresh.ended, 2000);
  });

  it('revoking a key during a grace window closes the streams of both secrets at once', async () => {
    const mk = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'rotating-revoked', scopes: ['talk'] } });
    const old = openStream(s.url, '/v1/events', mk.json.secret);
    await old.until(() => old.cursors.length === 1);
    const rotated = await call(s.url, 'POST', `/v1/keys/${mk.json.id}/rotate`, { key: s.live, body: { grace_s: 3600 } });
    const fresh = openStream(s.url, '/v1/events', rotated.json.secret);
    await fresh.until(() => fresh.cursors.length === 1);
    await call(s.url, 'DELETE', `/v1/keys/${mk.json.id}`, { key: s.live });
    await Promise.all([old.until(() => old.ended, 2000), fresh.until(() => fresh.ended, 2000)]);
  });
});

describe('retention', () => {
  it('an id older than what is kept gets a gap event first', async () => {
    const clock = createManualClock(Date.now());
    const s = await startTestServer({ clock });
    try {
      for (let i = 0; i < 5; i++)
        await s.core.events.emit({ accountId: 'default', kind: 'live' }, 'memory', { key: `topic:x${i}`, tier: 'fading' });
      clock.advance(8 * 24 * 3600_000);
      for (let i = 0; i < 3; i++)
        await s.core.events.emit({ accountId: 'default', kind: 'live' }, 'memory', { key: `topic:y${i}`, tier: 'fading' });
      await s.core.maintain();
      const st = openStream(s.url, '/v1/events?last_event_id=1', s.live);
      await st.until(() => st.frames.length >= 4);
      await st.close();
      expect(st.frames[0]).toEqual({ event: 'gap', data: { oldest_id: 6 } });
      expect(st.frames.slice(1).map((f) => Number(f.id))).toEqual([6, 7, 8]);
    } finally {
      await s.close();
      removeDir(s.dataDir);
    }
  });
});
