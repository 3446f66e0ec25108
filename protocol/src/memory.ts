// Memory listing and mutation shapes.
import { z } from 'zod';

export const memoryNamespaces = ['token', 'pair', 'addr', 'topic', 'pref'] as const;
export const MemoryKey = z
  .string()
  .regex(
    /^(token|pair|addr|topic|pref):[A-Za-z0-9._-]{1,64}$/,
    'a memory key is <namespace>:<name> with namespace token, pair, addr, topic or pref and a name of 1-64 letters, digits, ".", "_" or "-"',
  );

export const MemoryTier = z.enum(['pinned', 'fading']);

export const PinnedItem = z
  .object({
    key: z.string(),
    note: z.string(),
    tier: z.literal('pinned'),
    weight: z.number(),
    days_left: z.number().int().nullable(),
  })
  .meta({ id: 'PinnedMemory' });
export const FadingItem = z
  .object({
    key: z.string(),
    note: z.string(),
    tier: z.literal('fading'),
    weight: z.number(),
    days_left: z.number().int(),
  })
  .meta({ id: 'FadingMemory' });
export const MemoryListing = z.object({ pinned: z.array(PinnedItem), fading: z.array(FadingItem) }).meta({ id: 'MemoryListing' });
export type MemoryListing = z.infer<typeof MemoryListing>;

export const PinRequest = z.strictObject({ key: MemoryKey, note: z.string().max(500).optional() }).meta({ id: 'PinRequest' });
export const PinResult = z
  .object({ key: z.string(), tier: z.literal('pinned'), note: z.string(), changed: z.boolean() })
  .meta({ id: 'PinResult' });
export const ForgetResult = z.object({ key: z.string(), forgotten: z.literal(true) }).meta({ id: 'ForgetResult' });
export const MemoryKeyParams = z.object({ key: MemoryKey });
