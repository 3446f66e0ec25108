// What the app's open streams share: the registry that ends them (a revoked key's at once, a
// rotated secret's when its grace ends, every one as the app closes), the caps on how many
// may be open, and on a shared store the re-check of their keys against notices lost
// unnoticed (http/stream-recheck.ts). Wrapped with fastify-plugin: it decorates the root with
// `streams` and `streamCaps`, which buildApp hands every route plugin.
import type { Core } from '@presence/core';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createStreamCaps, type StreamCapLimits, type StreamCaps } from '../http/stream-caps';
import { startStreamRecheck } from '../http/stream-recheck';
import { createStreamRegistry, type StreamRegistry } from '../http/stream-registry';
import type { Metrics } from '../metrics/metrics';

export type StreamsOptions = {
  core: Core;
  limits: StreamCapLimits;
  metrics: Metrics;
  /** Look at every open stream's key this often (0: never). */
  recheckMs: number;
};

declare module 'fastify' {
  interface FastifyInstance {
    streams: StreamRegistry;
    streamCaps: StreamCaps;
  }
}

async function streams(app: FastifyInstance, { core, limits, metrics, recheckMs }: StreamsOptions) {
  const registry = createStreamRegistry({ now: () => core.clock.now() });
  const stopRevokeListener = core.keys.onRevoke((keyId) => registry.closeKey(keyId));
  const stopRotateListener = core.keys.onRotate((retired) => registry.retire(retired));
  const stopRecheck = startStreamRecheck({
    core,
    streams: registry,
    everyMs: recheckMs,
    onError: (err) => app.log.warn({ err }, 'stream key re-check failed'),
  });
  // Event streams never end by themselves: close them first, so that closing the server
  // waits only for ordinary in-flight requests.
  app.addHook('preClose', async () => {
    stopRevokeListener();
    stopRotateListener();
    stopRecheck();
    registry.closeAll();
  });
  const caps = createStreamCaps(limits);
  metrics.countStreams(
    () => caps.open,
    () => limits.total,
  );
  app.decorate('streams', registry);
  app.decorate('streamCaps', caps);
}

export const streamsPlugin = fp(streams, { name: 'presence-streams' });
