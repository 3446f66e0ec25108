// Conversation: one user turn per call (the server keeps the thread). With `stream: true`
// the answer is an SSE stream of token / tool / needs_confirm / done, read through the
// generic SSE-over-POST helper. A retried streamed turn (same Idempotency-Key) is replayed
// by the server as the same kind of stream, so the iterator needs no special case.
import { type MessageRequest, MessageResult, ThreadPage as ThreadPageSchema } from '@presence/protocol';
import type { z } from 'zod';
import { PresenceApiError, PresenceNetworkError, PresenceProtocolError } from '../errors';
import type { Http, OptionalParamsAction, RequestOptions } from '../http';
import { type SseRequestOptions, streamSse } from '../sse-request';

export type { MessageResult } from '@presence/protocol';
export type ThreadPage = z.infer<typeof ThreadPageSchema>;
export type SendMessageParameters = Omit<z.input<typeof MessageRequest>, 'stream'>;
export type ThreadQuery = { before?: string | number; limit?: number };

export type MessageStreamEvent =
  | { type: 'token'; text: string }
  | { type: 'tool'; name: string; args: Record<string, unknown> }
  | { type: 'needs_confirm'; confirm_id: string }
  | { type: 'done'; result: MessageResult };

/** Non-streamed: the whole reply. A retry with the same Idempotency-Key never acts twice. */
export const sendMessage = (http: Http, params: SendMessageParameters, options?: RequestOptions): Promise<MessageResult> =>
  http.json(MessageResult, { method: 'POST', path: '/v1/messages', body: { ...params, stream: false } }, options);

/**
 * Streamed: yields tokens as they come and ends after `done`. A stream that breaks off is
 * not resumed (a turn has no event ids) and must not be resent to "retry" an action:
 * resolve a `needs_confirm` through the confirm endpoint instead.
 */
export async function* streamMessage(
  http: Http,
  params: SendMessageParameters,
  options: SseRequestOptions = {},
): AsyncGenerator<MessageStreamEvent, void, undefined> {
  const frames = streamSse(http, { method: 'POST', path: '/v1/messages', body: { ...params, stream: true } }, options);
  for await (const f of frames) {
    if (f.kind !== 'event') continue;
    const data = json(f.data);
    if (f.event === 'token') yield { type: 'token', text: String(data.text ?? '') };
    else if (f.event === 'tool') yield { type: 'tool', name: String(data.name ?? ''), args: (data.args ?? {}) as Record<string, unknown> };
    else if (f.event === 'needs_confirm') yield { type: 'needs_confirm', confirm_id: String(data.confirm_id ?? '') };
    else if (f.event === 'error') {
      throw new PresenceApiError({
        ...data,
        type: String(data.type ?? 'internal'),
        title: String(data.title ?? 'Stream error'),
        status: Number(data.status ?? 500),
        detail: String(data.detail ?? 'the reply stream failed'),
      });
    } else if (f.event === 'done') {
      const result = MessageResult.safeParse(data);
      if (!result.success) throw new PresenceProtocolError('POST /v1/messages: the done event does not match the schema', 200);
      yield { type: 'done', result: result.data };
      return;
    }
  }
  throw new PresenceNetworkError('interrupted', 'POST /v1/messages: the reply stream ended before done');
}

/** The thread, newest last; pass `next_before` back as `before` for the previous page. */
export const listMessages: OptionalParamsAction<ThreadQuery, ThreadPage> = (http, query = {}, options) =>
  http.json(ThreadPageSchema, { method: 'GET', path: '/v1/messages', query }, options);

function json(raw: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(raw);
    if (v !== null && typeof v === 'object') return v as Record<string, unknown>;
  } catch {}
  throw new PresenceProtocolError('POST /v1/messages: stream data is not a JSON object', 200);
}

export const messagesResource = (http: Http) => {
  function send(params: SendMessageParameters & { stream: true }, options?: SseRequestOptions): AsyncGenerator<MessageStreamEvent>;
  function send(params: SendMessageParameters & { stream?: false }, options?: RequestOptions): Promise<MessageResult>;
  function send(params: SendMessageParameters & { stream?: boolean }, options?: SseRequestOptions) {
    const { stream, ...rest } = params;
    return stream ? streamMessage(http, rest, options) : sendMessage(http, rest, options);
  }
  return {
    send,
    history: (query?: ThreadQuery, options?: RequestOptions) => listMessages(http, query, options),
  };
};
