// The JSON-RPC transport under the chain port: viem's `custom` transport over undici's pooled
// `request`, sending every call made in one turn of the event loop as one JSON-RPC batch.
//
// Why not viem's `http` transport: per call it builds three Headers objects, an
// AbortController, a combined signal and a timer around the global fetch (whose WHATWG
// Request/Response streams JSON-RPC's small bodies do not need), and its batching waits on a
// timer (setTimeout ≥ 1 ms per call). The chain port issues its reads in groups (an intent:
// the pools' reserves; then balance, quote and allowance; then nonce, gas and fees), and a
// group is one HTTP round trip here, flushed by setImmediate as soon as the group has been
// issued. Errors are viem's own classes (HttpRequestError, RpcRequestError, TimeoutError), so
// viem's retry rules and our error mapping (rpc-errors.ts) see exactly what `http` would give.
import { Pool, errors as undiciErrors } from 'undici';
import { custom, HttpRequestError, RpcRequestError, TimeoutError, type Transport } from 'viem';

export interface RpcTransportOptions {
  /** Per HTTP request: no response headers, or a stalled body, within this is a timeout. */
  timeoutMs: number;
  retryCount?: number;
  retryDelay?: number;
}

type Call = { method: string; params?: unknown };
type Pending = { body: Call & { jsonrpc: '2.0'; id: number }; resolve: (v: unknown) => void; reject: (e: unknown) => void };
type RpcAnswer = { id?: number; result?: unknown; error?: { code: number; message: string; data?: unknown } };

const isAnswer = (x: unknown): x is RpcAnswer => typeof x === 'object' && x !== null && ('result' in x || 'error' in x);

/** Idle pooled sockets close on their own (keep-alive timeout) and hold no process open. */
export function rpcTransport(url: string, opts: RpcTransportOptions): Transport {
  const u = new URL(url);
  const path = `${u.pathname}${u.search}`;
  // Credentials in the URL (https://user:key@host) become a Basic header, as fetch would do.
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (u.username || u.password) {
    // A malformed escape (a stray "%") is sent as written rather than stopping the start.
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    };
    headers.authorization = `Basic ${Buffer.from(`${decode(u.username)}:${decode(u.password)}`).toString('base64')}`;
  }
  const pool = new Pool(u.origin, {
    connections: 8,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  });
  // Most calls in one HTTP request; 1 once the node has refused a batch.
  let maxBatch = 100;
  let queue: Pending[] = [];
  let nextId = 1;

  /**
   * One POST on the pool's lowest layer (`dispatch`): the answer's chunks are collected as they
   * come. undici's `request` would wrap them in a Readable stream (and the call in an
   * AsyncResource) per call — JSON-RPC answers are a few hundred bytes that need neither.
   */
  function post(text: string): Promise<{ statusCode: number; text: string }> {
    return new Promise((resolve, reject) => {
      let statusCode = 0;
      const chunks: Buffer[] = [];
      pool.dispatch(
        { path, method: 'POST', headers, body: text },
        {
          onConnect: () => undefined,
          onHeaders: (status: number) => {
            statusCode = status;
            return true;
          },
          onData: (chunk: Buffer) => {
            chunks.push(chunk);
            return true;
          },
          onComplete: () => resolve({ statusCode, text: Buffer.concat(chunks).toString('utf8') }),
          onError: reject,
        },
      );
    });
  }

  function flush() {
    while (queue.length > 0) {
      const group = queue.slice(0, maxBatch);
      queue = queue.slice(group.length);
      // Not awaited: the callers wait on their own pending promises; send() settles them all
      // and never rejects itself.
      void send(group);
    }
  }

  async function send(group: Pending[]) {
    const body = group.length === 1 ? (group[0] as Pending).body : group.map((p) => p.body);
    try {
      const res = await post(JSON.stringify(body));
      const text = res.text;
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        throw new HttpRequestError({ body, url, status: res.statusCode, details: 'the answer is not JSON' });
      }
      // A node that refuses a whole batch answers one error, bare or in a one-element array:
      // from then on it is asked one call at a time, starting with these.
      const whole = Array.isArray(data) && data.length === 1 && group.length > 1 ? data[0] : data;
      const refused = res.statusCode !== 429 && res.statusCode < 500;
      if (group.length > 1 && refused && isAnswer(whole) && whole.error) {
        maxBatch = 1;
        for (const p of group) void send([p]); // each settles its caller's promise, never rejects
        return;
      }
      if (res.statusCode < 200 || res.statusCode >= 300) {
        if (isAnswer(whole) && whole.error) throw new RpcRequestError({ body, error: whole.error, url, status: res.statusCode });
        throw new HttpRequestError({ body, url, status: res.statusCode, details: `HTTP ${res.statusCode}` });
      }
      const answers = new Map<number, RpcAnswer>();
      if (Array.isArray(data)) {
        for (const a of data) if (isAnswer(a) && typeof a.id === 'number') answers.set(a.id, a);
      } else if (isAnswer(data) && group.length === 1) answers.set((group[0] as Pending).body.id, data);
      for (const p of group) {
        const a = answers.get(p.body.id);
        if (!a) p.reject(new HttpRequestError({ body: p.body, url, details: 'the node left this call unanswered' }));
        else if (a.error) p.reject(new RpcRequestError({ body: p.body, error: a.error, url }));
        else p.resolve(a.result);
      }
    } catch (err) {
      const e =
        err instanceof HttpRequestError || err instanceof RpcRequestError
          ? err
          : err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError
            ? new TimeoutError({ body, url })
            : new HttpRequestError({ body, url, cause: err as Error, details: (err as Error)?.message ?? String(err) });
      for (const p of group) p.reject(e);
    }
  }

  return custom(
    {
      request: ({ method, params }: Call) =>
        new Promise((resolve, reject) => {
          queue.push({ body: { jsonrpc: '2.0', id: nextId++, method, params }, resolve, reject });
          if (queue.length === 1) setImmediate(flush);
        }),
    },
    { retryCount: opts.retryCount ?? 1, retryDelay: opts.retryDelay },
  );
}
