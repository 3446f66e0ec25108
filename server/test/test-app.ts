// For the server's own tests: the real app over a real core (lowdb in a temporary directory,
// a manual clock, no chain), with the account `default` and its live and test keys. Requests
// go through Fastify's inject(): no socket, no devnet, milliseconds per test.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type CoreOptions, createCore, createKeystore, createManualClock } from '@presence/core';
import { createLowdbPasskeyStore, createLowdbStore, createLowdbSurfaceStore, createLowdbWebhookStore } from '@presence/core/lowdb';
import { type App, type AppOptions, buildApp, type Limits } from '../src/app';
import { meteredStore } from '../src/metrics/metered-ports';
import { createMetrics, type Metrics } from '../src/metrics/metrics';

export type TestApp = {
  app: App;
  core: ReturnType<typeof createCore>;
  metrics: Metrics;
  clock: ReturnType<typeof createManualClock>;
  live: string;
  test: string;
  close(): Promise<void>;
};

export const testLimits: Limits = {
  streams: { perKey: 20, perAccount: 100, total: 1000 },
  authFailures: { limit: 60, windowMs: 60_000 },
  maxConnections: 100,
  connectionsPerAddress: 100,
  requestTimeoutMs: 30_000,
};

export async function startTestApp(
  options: {
    rateLimit?: { limit: number; windowMs: number };
    limits?: Partial<Limits>;
    app?: Pick<AppOptions, 'corsOrigins' | 'metricsToken' | 'logger'>;
    /** The chain, for readiness tests (default: none). */
    chain?: CoreOptions['chain'];
    /** How webhooks are sent (default: http and private addresses allowed, for receivers on 127.0.0.1). */
    webhookOptions?: CoreOptions['webhookOptions'];
    /** Keep passkeys (default: none, so `core.passkeys` is null). */
    passkeys?: boolean;
  } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'presence-server-test-'));
  const keystore = createKeystore(randomBytes(32));
  const metrics = createMetrics();
  const store = meteredStore(await createLowdbStore({ dataDir, keystore }), metrics);
  const surfaces = await createLowdbSurfaceStore({ dataDir, events: store });
  const webhooks = await createLowdbWebhookStore({ dataDir, fsync: false });
  const passkeys = options.passkeys ? await createLowdbPasskeyStore({ dataDir, fsync: false }) : undefined;
  const clock = createManualClock();
  const core = createCore({
    store,
    clock,
    keystore,
    surfaces,
    webhooks,
    webhookOptions: options.webhookOptions ?? { allowPrivate: true, timeoutMs: 2_000 },
    rateLimit: options.rateLimit ?? { limit: 120, windowMs: 60_000 },
    metrics: metrics.core,
    chain: options.chain,
    passkeys,
  });
  const keys = await core.accounts.bootstrap({ saved: null, save: async () => undefined });
  if (!keys) throw new Error('bootstrap made no keys');
  const app = await buildApp({ core, limits: { ...testLimits, ...options.limits }, validateResponses: true, metrics, ...options.app });
  return {
    app,
    core,
    metrics,
    clock,
    live: keys.live,
    test: keys.test,
    async close() {
      await app.close();
      await core.webhooks?.dispatcher.close();
      await webhooks.close();
      await surfaces.close();
      await passkeys?.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The Authorization header of a key. */
export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
