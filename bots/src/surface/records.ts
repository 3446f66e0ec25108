// The records the bots keep (links.jsonl, links.json carried over, the bots_* rows in
// PostgreSQL), as zod schemas: the one statement of their shape, their types inferred from it,
// and every record read back is parsed with them, so a record of the wrong shape is found
// where it is read rather than as a crash wherever a field is first used. Fields added after
// the first version are optional (records kept before them still parse); keys this version
// does not know are dropped, as zod's objects do.
import { z } from 'zod';

/** Which platform a user or chat belongs to; also the `surface` sent when redeeming a code. */
export const SurfaceName = z.enum(['telegram', 'discord']);
export type SurfaceName = z.infer<typeof SurfaceName>;

/** One message the bot sent. */
export const MessageRef = z.object({ chatId: z.string(), messageId: z.string() });
export type MessageRef = z.infer<typeof MessageRef>;

/** What a card shows once it is no longer open (render.ts words it). */
export const Outcome = z.discriminatedUnion('status', [
  z.object({ status: z.literal('executed'), tx: z.string().optional(), block: z.number().optional() }),
  z.object({ status: z.enum(['denied', 'expired']) }),
  z.object({ status: z.literal('failed'), reason: z.string().optional() }),
  z.object({ status: z.literal('answering'), approve: z.boolean() }),
  /** A closed card kept before outcomes were: only that it is no longer waiting is known. */
  z.object({ status: z.literal('settled') }),
]);
export type Outcome = z.infer<typeof Outcome>;

export const LinkRecord = z.object({
  surface: SurfaceName,
  user_id: z.string(),
  name: z.string(),
  account: z.string(),
  key_id: z.string(),
  key_name: z.string(),
  scopes: z.array(z.string()),
  /**
   * The key, sealed; read it with `keyOf`. Absent when the link was made (or moved over)
   * through the bot's surface token: the bot then acts for `key_id` and keeps no secret.
   */
  sealed_key: z.string().optional(),
  /** Where unprompted messages go: the user's private chat, once known. */
  home_chat: z.string().nullable(),
  linked_at: z.string(),
  /** The last events id handled for this user: the stream resumes after it. */
  last_event_id: z.number().nullable(),
});
export type LinkRecord = z.infer<typeof LinkRecord>;

export const CardState = z.enum(['open', 'answering', 'closed']);
export type CardState = z.infer<typeof CardState>;

export const CardRecord = z.object({
  /** The user whose key the card answers with (`<surface>:<user id>`); only they may press. */
  owner: z.string(),
  confirm_id: z.string(),
  summary: z.string(),
  amount: z.string(),
  value_usd: z.string().nullable(),
  expires_at: z.string(),
  timeout_s: z.number().nullable(),
  /** Set on a hold over passkey_over: Approve is a link to this page, not a callback. */
  approve_url: z.string().nullish(),
  messages: z.array(MessageRef),
  state: CardState,
  /**
   * What the card shows once it is no longer open (the answer under way while `answering`, the
   * result once `closed`), so whichever process sends a copy late can paint it. Null when
   * open; absent on records kept before it was (painted then as plainly settled).
   */
  outcome: Outcome.nullish(),
  updated_at: z.number(),
});
export type CardRecord = z.infer<typeof CardRecord>;
