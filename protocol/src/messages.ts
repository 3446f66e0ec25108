// Conversation shapes: POST /v1/messages, its streamed events, GET /v1/messages, standing intents.
import { z } from 'zod';
import { queryInteger, Timestamp } from './common';

export const MAX_MESSAGE_CHARS = 4000;

export const MessageRequest = z
  .strictObject({
    text: z.string().min(1, 'text must not be empty').max(MAX_MESSAGE_CHARS, `text is at most ${MAX_MESSAGE_CHARS} characters`),
    stream: z.boolean().optional(),
    allow_act: z.boolean().optional(),
  })
  .meta({ id: 'MessageRequest' });
export const MessageQuery = z.strictObject({ stream: z.enum(['true', 'false']).optional() });

export const UsedCallView = z.object({ tool: z.string(), args: z.record(z.string(), z.unknown()) }).meta({ id: 'UsedCall' });
export const MessageResult = z
  .object({
    reply: z.string(),
    used: z.array(UsedCallView),
    memory: z.object({ touched: z.array(z.string()) }),
    acted: z.boolean(),
    tx: z.string().optional(),
    confirm_id: z.string().optional(),
  })
  .meta({ id: 'MessageResult' });
export type MessageResult = z.infer<typeof MessageResult>;

export const ThreadMessageView = z
  .object({
    id: z.string(),
    role: z.enum(['user', 'presence']),
    text: z.string(),
    at: Timestamp,
    cause: z.string().optional(),
    used: z.array(UsedCallView).optional(),
    acted: z.boolean().optional(),
    tx: z.string().nullable().optional(),
    confirm_id: z.string().nullable().optional(),
  })
  .meta({ id: 'ThreadMessage' });
export const ThreadQuery = z.strictObject({
  before: queryInteger(z.number().int().positive()).optional().describe('next_before from the previous page'),
  limit: queryInteger(z.number().int().min(1).max(200)).default(50),
});
export const ThreadPage = z.object({ messages: z.array(ThreadMessageView), next_before: z.string().nullable() }).meta({ id: 'ThreadPage' });

/** When a standing intent fires: a price crossing its line, or a time of day (UTC). */
export const StandingTrigger = z
  .discriminatedUnion('kind', [
    z.object({
      kind: z.literal('price'),
      token: z.string(),
      op: z.enum(['below', 'above']),
      threshold: z.string().describe('the price line with its unit, e.g. "2500.00 USD"'),
    }),
    z.object({
      kind: z.literal('daily'),
      at: z
        .string()
        .regex(/^[0-9]{2}:[0-9]{2}$/)
        .describe('HH:MM, UTC'),
    }),
  ])
  .meta({ id: 'StandingTrigger' });
export type StandingTrigger = z.infer<typeof StandingTrigger>;
/** What a standing intent does when it fires: speak, report the balance, or submit an intent (its sentence). */
export const StandingAction = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('notify') }),
    z.object({ kind: z.literal('balance') }),
    z.object({ kind: z.literal('act'), intent: z.string() }),
  ])
  .meta({ id: 'StandingAction' });
export type StandingAction = z.infer<typeof StandingAction>;

export const StandingView = z
  .object({
    id: z.string(),
    text: z.string(),
    trigger: StandingTrigger,
    action: StandingAction,
    state: z.enum(['active', 'cancelled']),
    armed: z.boolean(),
    next_at: Timestamp.nullable(),
    fired_count: z.number().int(),
    last_fired_at: Timestamp.nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'Standing' });
export type StandingView = z.infer<typeof StandingView>;
export const StandingList = z.object({ standing: z.array(StandingView) }).meta({ id: 'StandingList' });
export const StandingParams = z.object({
  id: z.string().regex(/^st_[0-9A-Za-z]{12}$/, 'a standing id looks like st_ followed by 12 letters or digits'),
});
