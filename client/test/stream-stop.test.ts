// Stopping a stream must not depend on the transport honouring the abort. undici cannot
// cancel a response body that a reader holds, and an abort that lands as the server ends the
// response can leave the pending read unsettled; a bot waiting for its subscription to stop
// then hangs for good. Here the transport's body ignores the abort entirely (it neither
// ends nor errors), and a stop or an idle timeout still ends the read at once.
import { describe, expect, it } from 'vitest';
import { createPresenceClient, type ReconnectInfo } from '../src/index';

/** A fetch whose event stream sends one event, then stays open whatever the signal says. */
function deafFetch() {
  let opened = 0;
  const fetch = async (): Promise<Response> => {
    opened++;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(
          new TextEncoder().encode(`id: ${opened}\nevent: memory\ndata: {"key":"topic:x","tier":"fading","at":"now"}\n\n`),
        );
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetch: fetch as typeof globalThis.fetch, opened: () => opened };
}

const clientWith = (fetch: typeof globalThis.fetch) =>
  createPresenceClient({ baseUrl: 'http://127.0.0.1:9', token: 'prs_live_x', fetch, sleep: async () => undefined });

describe('a stream whose transport ignores the abort', () => {
  it('ends the iteration as soon as the caller aborts', async () => {
    const stop = new AbortController();
    const sub = clientWith(deafFetch().fetch).events.subscribe({ lastEventId: 0, signal: stop.signal });
    const ids: number[] = [];
    const done = (async () => {
      for await (const item of sub) if (item.type === 'memory') ids.push(item.id);
    })();
    await expect.poll(() => ids).toEqual([1]);
    // The transport never sends again nor ends: the iteration can only end by the abort.
    stop.abort();
    await done;
  });

  it('close() ends it too', async () => {
    const sub = clientWith(deafFetch().fetch).events.subscribe({ lastEventId: 0 });
    const it = sub[Symbol.asyncIterator]();
    expect((await it.next()).value).toMatchObject({ id: 1 });
    const pending = it.next();
    sub.close();
    expect((await pending).done).toBe(true);
  });

  it('an idle limit still drops the connection and reconnects', async () => {
    const deaf = deafFetch();
    const reconnects: ReconnectInfo[] = [];
    const stop = new AbortController();
    const sub = clientWith(deaf.fetch).events.subscribe({
      lastEventId: 0,
      signal: stop.signal,
      idleTimeoutMs: 100,
      onReconnect: (r) => reconnects.push(r),
    });
    const ids: number[] = [];
    const done = (async () => {
      for await (const item of sub) if (item.type === 'memory') ids.push(item.id);
    })();
    await expect.poll(() => ids, { timeout: 3000 }).toEqual([1, 2]);
    expect(reconnects[0]?.error.message).toMatch(/nothing received for 100 ms/);
    stop.abort();
    await done;
  });
});
