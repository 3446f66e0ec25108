// GET /metrics: Prometheus text from this app's registry. Public unless PRESENCE_METRICS_TOKEN
// is set; then it needs `Authorization: Bearer <that token>` (a scraper's secret, not a
// Presence key: no account, no scopes, no rate limit).
import { createHash, timingSafeEqual } from 'node:crypto';
import { PresenceError } from '@presence/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operations } from '../http/operation';
import type { RouteDeps } from '../http/types';

const digest = (s: string) => createHash('sha256').update(s).digest();

const op = operations({ tag: 'meta' })({
  getMetrics: {
    summary: 'Prometheus metrics (text exposition format)',
    description:
      'Prometheus metrics in the text exposition format: request latency by route and status, and the presence_* counters, gauges and histograms. Public unless the server sets PRESENCE_METRICS_TOKEN; then it needs that token as bearer and answers 401 without it.',
    answer: 'Prometheus text: HTTP latency by route and status, presence_* counters, gauges and histograms',
    text: 'text/plain; version=0.0.4',
    // Documented whatever this server's setting: a client may meet a server that has the token.
    problems: ['auth'],
  },
});

export const metricsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { metrics, metricsToken }) => {
  const expected = metricsToken ? digest(`Bearer ${metricsToken}`) : null;
  app.get('/metrics', op.getMetrics, async (req, reply) => {
    // Compared as digests: equal lengths, and no timing that tells how much of the token was right.
    if (expected && !timingSafeEqual(digest(req.headers.authorization ?? ''), expected))
      throw new PresenceError('auth', 'GET /metrics needs Authorization: Bearer <PRESENCE_METRICS_TOKEN>');
    return reply.type(metrics.contentType).send(await metrics.scrape());
  });
};
