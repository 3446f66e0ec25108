// The planner port: what turns a user's message into the presence's reply. `local` is a
// deterministic planner in core; `provider:model` routes go through the Vercel AI SDK. Both
// get the same tools and the same bounded context; neither can reach anything else.
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
  pinned: { key: string; note: string }[];
  /** Memory keys this message mentions. */
  touched: string[];
  allowAct: boolean;
  preferences: Record<string, unknown>;
};

export type PlannerIO = {
  tools: ToolDef[];
  /** Streams reply text as it is produced. */
  token(text: string): void;
  signal?: AbortSignal;
};

export interface Planner {
  readonly name: string;
  /** Answers the whole reply text (the same text streamed through io.token). */
  run(ctx: PlannerContext, io: PlannerIO): Promise<string>;
}
