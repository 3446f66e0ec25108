// Caps on open streaming responses (GET /v1/events and streamed POST /v1/messages): per key,
// per account and server-wide. Each open stream holds a connection, so a file descriptor,
// until the client goes away; without caps one key could hold every descriptor the process
// has and leave none for health checks, writes or the store's own files. A refusal closes
// its connection: a client retrying in a loop must not pile up idle kept-alive connections
// in the stream's place.
import { PresenceError } from '@presence/core';
import type { FastifyReply } from 'fastify';

export type StreamCapLimits = { perKey: number; perAccount: number; total: number };
export type StreamCaps = ReturnType<typeof createStreamCaps>;

/** A slot frees only when some stream closes, which no clock predicts: ask again shortly. */
export const STREAM_RETRY_AFTER_S = 5;

export function createStreamCaps(limits: StreamCapLimits) {
  const byKey = new Map<string, number>();
  const byAccount = new Map<string, number>();
  let total = 0;
  const bump = (m: Map<string, number>, id: string, d: number) => {
    const n = (m.get(id) ?? 0) + d;
    if (n > 0) m.set(id, n);
    else m.delete(id);
  };

  return {
    /**
     * Takes a slot for a stream of this key, or throws: 429 rate_limited (with `limit`
     * naming the cap) past a key's or an account's cap, 503 unavailable past the server's.
     * The returned release is idempotent.
     */
    acquire(p: { keyId: string; accountId: string }, reply: FastifyReply): () => void {
      const refuse = (type: 'rate_limited' | 'unavailable', limit: string, detail: string) => {
        reply.header('connection', 'close');
        return new PresenceError(type, `${detail}; close one, or retry in ${STREAM_RETRY_AFTER_S} s`, {
          retryAfter: STREAM_RETRY_AFTER_S,
          extra: { limit },
        });
      };
      if ((byKey.get(p.keyId) ?? 0) >= limits.perKey)
        throw refuse('rate_limited', 'streams_per_key', `this key has ${limits.perKey} open streams, the most allowed`);
      if ((byAccount.get(p.accountId) ?? 0) >= limits.perAccount)
        throw refuse('rate_limited', 'streams_per_account', `this account has ${limits.perAccount} open streams, the most allowed`);
      if (total >= limits.total) throw refuse('unavailable', 'streams', `the server holds ${limits.total} open streams, its most`);
      bump(byKey, p.keyId, 1);
      bump(byAccount, p.accountId, 1);
      total++;
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        bump(byKey, p.keyId, -1);
        bump(byAccount, p.accountId, -1);
        total--;
      };
    },
    get open() {
      return total;
    },
  };
}
