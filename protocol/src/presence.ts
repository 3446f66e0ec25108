// The presence resource: GET/PATCH /v1/presence/me.
import { z } from 'zod';
import { SpendLabel } from './policy';

/**
 * Preferences are small, bounded settings: every account's document is rewritten on each of
 * its writes, so an unbounded one would make that account's own writes ever slower (and, kept
 * with others, theirs too). The bounds apply to the stored result of a PATCH, not only to the
 * patch itself.
 */
export const preferenceLimits = { keys: 50, keyChars: 64, valueChars: 500, bytes: 16 * 1024 } as const;

export const PreferenceValue = z.union([z.string(), z.number(), z.boolean()]);
/** What is stored and shown. Not bounded here: a document kept by an earlier version may exceed the limits. */
export const Preferences = z.record(z.string(), PreferenceValue).meta({ id: 'Preferences' });
export type Preferences = z.infer<typeof Preferences>;

/** Why `prefs` breaks a limit (a sentence naming it), or null when it is within all of them. */
export function preferencesOverLimit(prefs: Record<string, unknown>): string | null {
  const keys = Object.keys(prefs);
  if (keys.length > preferenceLimits.keys) return `preferences hold at most ${preferenceLimits.keys} keys (this would be ${keys.length})`;
  // TextEncoder, not Buffer: the protocol also runs in the browser (the SDK in the extension).
  const bytes = new TextEncoder().encode(JSON.stringify(prefs)).length;
  if (bytes > preferenceLimits.bytes)
    return `preferences are at most ${preferenceLimits.bytes} bytes (16 KiB) as JSON (this would be ${bytes})`;
  return null;
}

/** A PATCH of preferences: merged key by key; `null` removes a key. */
export const PreferencesPatch = z
  .record(
    z.string(),
    z.union([
      z.string().max(preferenceLimits.valueChars, `a preference value is at most ${preferenceLimits.valueChars} characters`),
      z.number(),
      z.boolean(),
      z.null(),
    ]),
  )
  .superRefine((prefs, ctx) => {
    // Checked here rather than in the key schema, whose failure zod reports only as "Invalid key in record".
    const badKey = Object.keys(prefs).find((k) => k.length < 1 || k.length > preferenceLimits.keyChars);
    if (badKey !== undefined)
      ctx.addIssue({
        code: 'custom',
        message: `a preference key is 1 to at most ${preferenceLimits.keyChars} characters (one is ${badKey.length})`,
      });
    const over = preferencesOverLimit(prefs);
    if (over) ctx.addIssue({ code: 'custom', message: over });
  })
  .describe(
    `Merged into the stored preferences key by key; null removes a key. The result holds at most ${preferenceLimits.keys} keys of at most ${preferenceLimits.keyChars} characters, string values of at most ${preferenceLimits.valueChars} characters, and at most 16 KiB as JSON.`,
  )
  .meta({ id: 'PreferencesPatch' });
export type PreferencesPatch = z.infer<typeof PreferencesPatch>;
export const ModelRoute = z
  .string()
  .regex(/^(local|[a-z0-9-]+:[A-Za-z0-9._:/-]+)$/, 'route.model is "local" or "provider:model", e.g. "openai:gpt-4o-mini"');

export const PresenceView = z
  .object({
    name: z.string(),
    route: z.object({ model: z.string() }),
    memory: z.object({ pinned: z.number().int(), fading: z.number().int() }),
    wallet: z.object({ chain: z.string(), spend: SpendLabel }),
    preferences: Preferences,
    mode: z.enum(['live', 'test']),
  })
  .meta({ id: 'Presence' });
export type PresenceView = z.infer<typeof PresenceView>;

export const PresencePatch = z
  .object({
    name: z.string().min(1).max(64).optional(),
    route: z.strictObject({ model: ModelRoute }).optional(),
    preferences: PreferencesPatch.optional(),
  })
  .strict()
  .meta({ id: 'PresencePatch' });
export type PresencePatch = z.infer<typeof PresencePatch>;

/** Where the server keeps its records; `schema` is the PostgreSQL schema version it runs on. */
export const StoreInfo = z
  .discriminatedUnion('kind', [z.object({ kind: z.literal('lowdb') }), z.object({ kind: z.literal('postgres'), schema: z.number().int() })])
  .meta({ id: 'StoreInfo' });
export type StoreInfo = z.infer<typeof StoreInfo>;

export const Health = z
  .object({
    ok: z.boolean(),
    version: z.string(),
    chain: z.object({ id: z.number().int(), block: z.number().int() }).nullable(),
    store: StoreInfo,
    /** Which server answered, and whether it runs the deployment's background work (many servers on one database). */
    server: z.object({ id: z.string(), leader: z.boolean() }).optional(),
  })
  .meta({ id: 'Health' });

/** What GET /v1/ready checked: each dependency answered, and how long it took. */
export const ReadyCheck = z.object({ ok: z.literal(true), ms: z.number() });
export const Ready = z
  .object({
    ok: z.literal(true),
    checks: z.object({
      store: ReadyCheck,
      /** null when the server runs without a chain. */
      chain: ReadyCheck.extend({ block: z.number().int() }).nullable(),
    }),
  })
  .meta({ id: 'Ready' });
export type Ready = z.infer<typeof Ready>;
