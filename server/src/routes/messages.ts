// POST /v1/messages (plain JSON or SSE), GET /v1/messages (the thread).
// Messages manage their own Idempotency-Key: one stored answer serves a retry whether it
// asks for JSON or a stream, so the fingerprint covers text and allow_act but not `stream`.
import { chunkReply, fingerprintRequest, type IdempotencyClaim, requireScope, type StoredAnswer } from '@presence/core';
import type { Problem } from '@presence/protocol';
import * as schemas from '@presence/protocol';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sendStoredAnswer } from '../http/idempotency';
import { PROBLEM_CONTENT_TYPE, problemFor } from '../http/problem';
import { openSse } from '../http/sse';
import type { RouteDeps } from '../http/types';

const JSON_TYPE = 'application/json; charset=utf-8';

const toProblem = (e: unknown): Problem =>
  problemFor(e, undefined, 'the turn failed on our side; nothing was stored, and retrying with the same Idempotency-Key is safe');

export const messagesRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core, streamCaps }) => {
  app.get(
    '/v1/messages',
    {
      config: { scope: 'talk' },
      schema: {
        summary: 'The thread, newest last; page back with ?before=next_before',
        tags: ['messages'],
        querystring: schemas.ThreadQuery,
        response: { 200: schemas.ThreadPage },
      },
    },
    async (req) => core.conversation.list(req.principal!, req.query.before, req.query.limit),
  );

  app.post(
    '/v1/messages',
    {
      config: { scope: 'talk', ownIdempotency: true },
      schema: {
        summary: 'One turn: the reply as JSON, or an SSE stream of token, tool, needs_confirm and done',
        tags: ['messages'],
        body: schemas.MessageRequest,
        querystring: schemas.MessageQuery,
        response: { 200: schemas.MessageResult },
      },
    },
    async (req, reply) => {
      const p = req.principal!;
      const allowAct = req.body.allow_act === true;
      if (allowAct) requireScope(p, 'wallet:act');
      const stream = req.body.stream === true || req.query.stream === 'true';
      // A streamed turn holds its connection like an events stream, and counts under the same caps.
      if (stream) {
        const release = streamCaps.acquire(p, reply);
        reply.raw.once('close', release);
      }
      const key = req.headers['idempotency-key'];
      let claim: IdempotencyClaim | null = null;
      if (typeof key === 'string') {
        const fp = fingerprintRequest('POST', '/v1/messages', JSON.stringify({ text: req.body.text, allow_act: allowAct }));
        claim = await core.idempotency.claim(p.accountId, p.kind, key, fp);
        if (claim.kind === 'replay') return replay(reply, claim.answer, stream);
      }
      const proceed = claim?.kind === 'proceed' ? claim : null;
      // Answers and 4xx problems are final for this key; a 5xx is not stored, so a retry runs again.
      const recordOutcome = async (outcome: { result: schemas.MessageResult } | { problem: Problem }) => {
        if (!proceed) return;
        if ('result' in outcome) {
          await proceed.complete({ status: 200, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(outcome.result) });
        } else if (outcome.problem.status < 500) {
          await proceed.complete({
            status: outcome.problem.status,
            headers: { 'content-type': PROBLEM_CONTENT_TYPE },
            body: JSON.stringify(outcome.problem),
          });
        } else proceed.abandon();
      };
      const input = { text: req.body.text, allowAct, idempotencyKey: typeof key === 'string' ? key : null };

      if (!stream) {
        try {
          const result = await core.conversation.send(p, input, { token() {}, tool() {}, needsConfirm() {} });
          await recordOutcome({ result });
          // Send the bytes just stored, so a replay is byte-identical to this answer.
          return reply
            .type(JSON_TYPE)
            .serializer((x: unknown) => x as string)
            .send(JSON.stringify(result) as never);
        } catch (e) {
          await recordOutcome({ problem: toProblem(e) });
          throw e;
        }
      }

      const sse = openSse(reply);
      try {
        const result = await core.conversation.send(p, input, {
          token: (text) => void sse.send({ event: 'token', data: { text } }),
          tool: (name, args) => void sse.send({ event: 'tool', data: { name, args } }),
          needsConfirm: (confirmId) => void sse.send({ event: 'needs_confirm', data: { confirm_id: confirmId } }),
        });
        await recordOutcome({ result });
        await sse.send({ event: 'done', data: result });
      } catch (e) {
        const problem = toProblem(e);
        if (problem.status >= 500) req.log.error({ err: e }, 'streamed turn failed');
        await recordOutcome({ problem });
        await sse.send({ event: 'error', data: problem });
      } finally {
        sse.end();
      }
    },
  );

  /** A stored answer, as JSON or re-rendered as the stream the caller asked for. */
  async function replay(reply: FastifyReply, answer: StoredAnswer, stream: boolean) {
    if (!stream) return sendStoredAnswer(reply, answer);
    const sse = openSse(reply, { 'idempotent-replayed': 'true' });
    const data = JSON.parse(answer.body);
    if (answer.status === 200) {
      for (const call of data.used ?? []) await sse.send({ event: 'tool', data: { name: call.tool, args: call.args } });
      if (data.confirm_id) await sse.send({ event: 'needs_confirm', data: { confirm_id: data.confirm_id } });
      for (const text of chunkReply(data.reply)) await sse.send({ event: 'token', data: { text } });
      await sse.send({ event: 'done', data });
    } else await sse.send({ event: 'error', data });
    sse.end();
  }
};
