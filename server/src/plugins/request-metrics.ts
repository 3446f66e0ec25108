// What the app counts for /metrics beyond core's own figures: every answer timed by its
// route's pattern (a 404 has none: `unmatched`; streams until they close), and the webhook
// backlog when webhooks are kept. Wrapped with fastify-plugin: the hook times every route.
import type { Core } from '@presence/core';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Metrics } from '../metrics/metrics';

async function requestMetrics(app: FastifyInstance, { core, metrics }: { core: Core; metrics: Metrics }) {
  // A callback hook: an async one costs every request a promise and a microtask turn.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.request(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  const dispatcher = core.webhooks?.dispatcher;
  if (dispatcher) metrics.countWebhookBacklog(() => dispatcher.backlog(10));
}

export const requestMetricsPlugin = fp(requestMetrics, { name: 'presence-request-metrics' });
