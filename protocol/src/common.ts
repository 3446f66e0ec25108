// Shared boundary schemas: scopes, problems, timestamps, ids.
import { z } from 'zod';

export const scopes = ['talk', 'memory:read', 'memory:write', 'wallet:read', 'wallet:act', 'admin'] as const;
export const Scope = z.enum(scopes).meta({ id: 'Scope' });
export type Scope = z.infer<typeof Scope>;

export const KeyKind = z.enum(['live', 'test']).meta({ id: 'KeyKind' });
export type KeyKind = z.infer<typeof KeyKind>;

export const Timestamp = z.string().describe('RFC 3339 timestamp in UTC');

const DIGITS = /^[0-9]{1,16}$/;
/**
 * An integer in a query string: digits only, then `int` (its bounds) judges the number. Not
 * z.coerce.number(), which read "" as 0 (`?last_event_id=` replayed everything), "0x10" as 16,
 * "1e3" as 1000 and " 5" as 5, none of them the integer the document promises. Anything else
 * is left as it came, so `int` refuses it; the document still says `integer`.
 */
export const queryInteger = <T extends z.ZodNumber>(int: T) =>
  z.preprocess((v) => (typeof v === 'string' && DIGITS.test(v) ? Number(v) : v), int);

/** A record's view with its secret: the one answer that shows it (create, rotate), named `id` in the document. */
export const withSecret = <S extends z.ZodRawShape>(view: z.ZodObject<S>, id: string, secret: string) =>
  view.extend({ secret: z.string().describe(secret) }).meta({ id });

export const Problem = z
  .object({
    /** Open, not an enum: a client must survive a type added after it was built. */
    type: z.string().describe('Stable: branch on it. Types are added, never renamed; each answer lists those it can carry.'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    /** The id of the request this answers (its X-Request-Id); quote it when reporting a fault. */
    request_id: z.string().optional(),
  })
  .catchall(z.unknown())
  .meta({ id: 'Problem', description: 'An RFC 9457 problem (application/problem+json); some types add fields (policy_block: rule).' });
export type Problem = z.infer<typeof Problem>;

export const KeyId = z.string().regex(/^key_[0-9A-Za-z]{16}$/, 'a key id looks like key_ followed by 16 letters or digits');

export const Ok = z.object({ ok: z.literal(true) });
