// What one turn of the `local` planner works with: a call to a tool it was offered, and a way
// to end the turn with words before any tool runs (a refusal, or a problem with what was
// asked). Shared by the planner's rules and its answers to readings.
import type { Problem } from '../errors/presence-error';
import type { PlannerContext } from './planner-port';
import { type ToolName, toolRefusal } from './tool-scopes';

// biome-ignore lint/suspicious/noExplicitAny: tool results are read by the rule that called the tool
export type Call = (name: ToolName, args?: Record<string, unknown>) => Promise<any>;

export type LocalTurn = {
  call: Call;
  ctx: PlannerContext;
  /** Whether the turn was offered the tool (its key's scopes allow it). */
  offered(name: ToolName): boolean;
};

/** A reply that ends the turn before any tool runs: a refusal (`refused`), or a problem with what was asked. */
export class Say extends Error {
  constructor(
    message: string,
    readonly refused = false,
  ) {
    super(message);
  }
}

/** Ends the turn with the reason, when this turn may not use the tool (with these arguments). */
export function mustMay(name: ToolName, ctx: PlannerContext, args?: Record<string, unknown>): void {
  const refused = toolRefusal(name, ctx, args);
  if (refused) throw new Say(refused.detail, true);
}

export const problemOf = (r: unknown): Problem | null => ((r as { error?: Problem })?.error ? (r as { error: Problem }).error : null);

/** "a price to watch must be more than 0 USD" → "A price to watch must be more than 0 USD." */
export const sentence = (detail: string) => {
  const t = detail.trim();
  return `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;
};
