// Core as a server runs it: the configuration's limits, the store and cluster port it opened,
// the deployment's locks, the chain, and a model planner when PRESENCE_LLM_BASE_URL names an
// OpenAI-compatible server (without one, `provider:model` routes answer model_unavailable).
import { type ChainRuntime, type Clock, type Core, createCore, type Keystore, redactMessage } from '@presence/core';
import { createAiPlanner } from '@presence/core/ai';
import { WEBHOOKS_PER_ACCOUNT } from '@presence/protocol';
import type { Config } from './config';
import type { Coordination } from './coordination';
import type { Metrics } from './metrics/metrics';
import type { Storage } from './open-storage';

export function createServerCore(
  config: Config,
  {
    storage,
    coordination,
    chain,
    keystore,
    metrics,
    clock,
    publicUrl,
    onPasskeyRefused,
  }: {
    /** PRESENCE_PUBLIC_URL, or the default once the port is known. */
    publicUrl: () => string;
    onPasskeyRefused: NonNullable<Parameters<typeof createCore>[0]['onPasskeyRefused']>;
    storage: Storage;
    coordination: Coordination;
    chain: ChainRuntime | null;
    keystore: Keystore;
    metrics: Metrics;
    clock: Clock;
  },
): Core {
  return createCore({
    ...storage.wiring,
    clock,
    rateLimit: config.PRESENCE_RATE_LIMIT,
    accountLimits: {
      keys: config.PRESENCE_MAX_KEYS_PER_ACCOUNT,
      links: config.PRESENCE_MAX_LINKS_PER_ACCOUNT,
      standing: config.PRESENCE_MAX_STANDING_PER_ACCOUNT,
      memory: config.PRESENCE_MAX_MEMORY_PER_ACCOUNT,
      held: config.PRESENCE_MAX_HELD_PER_ACCOUNT,
      webhooks: WEBHOOKS_PER_ACCOUNT,
    },
    keystore,
    surfaces: storage.surfaces,
    webhooks: storage.webhooks,
    webhookOptions: { allowPrivate: config.PRESENCE_WEBHOOK_ALLOW_PRIVATE, serverId: coordination.serverId },
    passkeys: storage.passkeys,
    publicUrl,
    onPasskeyRefused,
    locks: coordination.locks,
    leases: coordination.leases,
    chainName: () => config.PRESENCE_CHAIN,
    overlayShare: storage.overlayShare ?? undefined,
    onBackgroundError: (err) =>
      console.error('presence: background store read failed:', redactMessage(err instanceof Error ? err.message : String(err))),
    metrics: metrics.core,
    chain: chain ? { runtime: chain, keystore } : undefined,
    modelPlanner: config.PRESENCE_LLM_BASE_URL
      ? createAiPlanner({ baseUrl: config.PRESENCE_LLM_BASE_URL, apiKey: config.PRESENCE_LLM_API_KEY })
      : undefined,
  });
}
