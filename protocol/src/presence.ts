// The presence resource: GET/PATCH /v1/presence/me.
import { z } from 'zod';
import { SpendLabel } from './policy';

export const Preferences = z.record(z.string().max(64), z.union([z.string().max(500), z.number(), z.boolean()]));
export const ModelRoute = z
  .string()
  .regex(/^(local|[a-z0-9-]+:[A-Za-z0-9._:/-]+)$/, 'route.model is "local" or "provider:model", e.g. "openai:gpt-4o-mini"');

export const PresenceView = z.object({
  name: z.string(),
  route: z.object({ model: z.string() }),
  memory: z.object({ pinned: z.number().int(), fading: z.number().int() }),
  wallet: z.object({ chain: z.string(), spend: SpendLabel }),
  preferences: Preferences,
  mode: z.enum(['live', 'test']),
});
export type PresenceView = z.infer<typeof PresenceView>;

export const PresencePatch = z
  .object({
    name: z.string().min(1).max(64).optional(),
    route: z.object({ model: ModelRoute }).optional(),
    preferences: Preferences.optional(),
  })
  .strict();
export type PresencePatch = z.infer<typeof PresencePatch>;

export const Health = z.object({
  ok: z.boolean(),
  version: z.string(),
  chain: z.object({ id: z.number().int(), block: z.number().int() }).nullable(),
});
