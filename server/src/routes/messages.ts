// POST /v1/messages (plain JSON or SSE), GET /v1/messages (the thread).
// A turn's Idempotency-Key, and whether it is a replay, are core's (conversation.begin): this
// route only carries the turn's answer as JSON or its events as a stream.
import type { TurnSink } from '@presence/core';
import type { Problem } from '@presence/protocol';
import * as schemas from '@presence/protocol';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sendStoredAnswer } from '../http/idempotency';
import { operations } from '../http/operation';
import { problemFor, withRequestId } from '../http/problem';
import { openSse } from '../http/sse';
import { callerOf, type RouteDeps } from '../http/types';

const SILENT: TurnSink = { token() {}, tool() {}, needsConfirm() {} };

const toProblem = (e: unknown, req: FastifyRequest): Problem =>
  problemFor(e, req, 'the turn failed on our side; nothing was stored, and retrying with the same Idempotency-Key is safe');

const op = operations({ tag: 'messages', scope: 'talk' })({
  listMessages: {
    summary: 'The thread, newest last; page back with ?before=next_before',
    description:
      'The conversation thread the server keeps, newest last, a page at a time (`limit` 1–200, default 50); `next_before` pages back. Replies drawing on scopes this key lacks read as redacted.',
    querystring: schemas.ThreadQuery,
    answer: 'A page of the thread, newest last, with the cursor for the page before',
    response: schemas.ThreadPage,
  },
  sendMessage: {
    ownIdempotency: true,
    summary: 'One turn: the reply as JSON, or an SSE stream of token, tool, needs_confirm and done',
    description:
      "One user turn in, the presence's reply out; the server keeps the thread. With `stream: true` (or `?stream=true`) the answer is an SSE stream of token, tool and needs_confirm frames ending with `done` (or `error`). `allow_act: true` lets this turn act on chain (also needs wallet:act), still within the spend policy. A retry with the same Idempotency-Key returns the first answer and never acts twice.",
    body: schemas.MessageRequest,
    querystring: schemas.MessageQuery,
    answer:
      'The turn: the reply, what it used and did (JSON); or, asked with stream, an SSE stream of token, tool, needs_confirm and done (or error)',
    response: schemas.MessageResult,
    stream: { frames: schemas.TurnStreamFrame, when: 'also' },
    problems: ['model_unavailable', 'policy_block', 'intent_unresolved', 'chain_unavailable', 'unavailable'],
  },
});

export const messagesRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core, streamCaps }) => {
  app.get('/v1/messages', op.listMessages, async (req) => core.conversation.list(callerOf(req), req.query.before, req.query.limit));

  app.post('/v1/messages', op.sendMessage, async (req, reply) => {
    const p = callerOf(req);
    const stream = req.body.stream === true || req.query.stream === 'true';
    // A streamed turn holds its connection like an events stream, and counts under the same
    // caps; taken before the turn's Idempotency-Key is claimed, so a refusal leaves it free.
    if (stream) {
      const release = streamCaps.acquire(p, reply);
      reply.raw.once('close', release);
    }
    const key = req.headers['idempotency-key'];
    const turn = await core.conversation.begin(p, {
      text: req.body.text,
      allowAct: req.body.allow_act === true,
      idempotencyKey: typeof key === 'string' ? key : null,
    });

    if (!stream) {
      const answer = await turn.run(SILENT);
      if (turn.replayed) return sendStoredAnswer(reply, answer);
      // The bytes core stored (a fresh answer is a 200), so a replay is byte-identical to this answer.
      return reply
        .headers(answer.headers)
        .serializer((x: unknown) => x as string)
        .send(answer.body as never);
    }

    const sse = openSse(reply, turn.replayed ? { 'idempotent-replayed': 'true' } : {});
    try {
      const answer = await turn.run({
        token: (text) => void sse.send({ event: 'token', data: { text } }),
        tool: (name, args) => void sse.send({ event: 'tool', data: { name, args } }),
        needsConfirm: (confirmId) => void sse.send({ event: 'needs_confirm', data: { confirm_id: confirmId } }),
      });
      await sse.send(
        'result' in answer ? { event: 'done', data: answer.result } : { event: 'error', data: withRequestId(answer.problem, req.id) },
      );
    } catch (e) {
      const problem = toProblem(e, req);
      if (problem.status >= 500) req.log.error({ err: e }, 'streamed turn failed');
      await sse.send({ event: 'error', data: problem });
    } finally {
      sse.end();
    }
  });
};
