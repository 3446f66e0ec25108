// The planner port: what turns a user's message into the presence's reply. `local` is a
// deterministic planner in core; `provider:model` routes go through the Vercel AI SDK. Both
// get the same tools and the same bounded context; neither can reach anything else. Both
// offer only the tools the turn's grant allows (tool-scopes.ts); the tools refuse the rest.
import type { Scope } from '@presence/protocol';
import type { z } from 'zod';

export type ToolDef<A extends z.ZodType = z.ZodType> = {
  name: string;
  description: string;
  args: A;
  run(args: z.infer<A>): Promise<unknown>;
};

export type PlannerContext = {
  presenceName: string;
  text: string;
  /** The last turns, oldest first, already cut to the token budget. */
  history: { user: string; reply: string }[];
  /** Pinned memory (empty unless the key holds memory:read). */
  pinned: { key: string; note: string }[];
  /** Memory keys this message mentions and the turn will touch (empty unless the key holds memory:write). */
  touched: string[];
  /** The key's scopes: what the turn may do, with allowAct (see tool-scopes.ts). */
  scopes: readonly Scope[];
  allowAct: boolean;
  preferences: Record<string, unknown>;
};

export type PlannerIO = {
  /** Every presence tool; a planner offers only those `offeredTools` lets this turn use. */
  tools: ToolDef[];
  /** Streams reply text as it is produced. */
  token(text: string): void;
  /** The planner refused something the message asked (a scope the key lacks, or allow_act): the turn touches no memory. */
  refused(): void;
  signal?: AbortSignal;
};

export interface Planner {
  readonly name: string;
  /** Answers the whole reply text (the same text streamed through io.token). */
  run(ctx: PlannerContext, io: PlannerIO): Promise<string>;
}
