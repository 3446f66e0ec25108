// Shared boundary schemas: scopes, problems, timestamps, ids.
import { z } from 'zod';

export const scopes = ['talk', 'memory:read', 'memory:write', 'wallet:read', 'wallet:act', 'admin'] as const;
export const Scope = z.enum(scopes);
export type Scope = z.infer<typeof Scope>;

export const KeyKind = z.enum(['live', 'test']);
export type KeyKind = z.infer<typeof KeyKind>;

export const Timestamp = z.string().describe('RFC 3339 timestamp in UTC');

export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    /** The id of the request this answers (its X-Request-Id); quote it when reporting a fault. */
    request_id: z.string().optional(),
  })
  .catchall(z.unknown());
export type Problem = z.infer<typeof Problem>;

export const KeyId = z.string().regex(/^key_[0-9A-Za-z]{16}$/, 'a key id looks like key_ followed by 16 letters or digits');

export const Ok = z.object({ ok: z.literal(true) });
