// Which scopes each presence tool needs: the one table both planners filter their tools
// through, and the gate every tool call passes. Scopes only narrow (spec §5): a turn is
// offered exactly the tools its key's scopes allow — a model is not even told of the others —
// and a call it may not make does nothing at all: it is not run, not traced in `used`, not
// announced as a `tool` event; it answers a problem that names the missing scope. The needs
// mirror the routes: reading memory is memory:read, writing it memory:write, chain views and
// the wallet wallet:read, acting wallet:act plus a turn with allow_act, standing intents what
// they will do when they fire (standing-scopes.ts), listing and cancelling them talk (as the
// routes do). A tool missing from this
// table is never offered: withdrawals and policy changes are not tools, by design.
import type { Scope } from '@presence/protocol';
import { PresenceError } from '../errors/presence-error';
import { type TurnNeed, turnRefusal } from '../keys/scopes';
import { parseStanding } from '../standing/standing-parser';
import { STANDING_NEEDS, standingNeed } from '../standing/standing-scopes';

type ToolGate = {
  /** Any one of these lets the tool be offered. */
  needs: readonly TurnNeed[];
  /** What one call needs given its arguments, when that is narrower to say (null: the tool answers the problem itself). */
  forCall?: (args: Record<string, unknown>) => TurnNeed | null;
};

const one = (...scopes: Scope[]): ToolGate => ({ needs: [{ scopes }] });

/** The standing intent this sentence asks for needs what it will do; an unreadable one is the tool's to explain. */
function standingCall(args: Record<string, unknown>): TurnNeed | null {
  try {
    const spec = typeof args.text === 'string' ? parseStanding(args.text) : null;
    return spec ? standingNeed(spec) : null;
  } catch {
    return null;
  }
}

export const TOOL_SCOPES = {
  'chain.tokens': one('wallet:read'),
  'chain.pools': one('wallet:read'),
  'chain.positions': one('wallet:read'),
  'chain.safety': one('wallet:read'),
  'wallet.read': one('wallet:read'),
  'wallet.actions': one('wallet:read'),
  'memory.list': one('memory:read'),
  'memory.remember': one('memory:write'),
  'memory.forget': one('memory:write'),
  'standing.list': one('talk'),
  'standing.cancel': one('talk'),
  'standing.create': { needs: STANDING_NEEDS, forCall: standingCall },
  'intent.submit': { needs: [{ scopes: ['wallet:act'], allowAct: true }] },
} as const satisfies Record<string, ToolGate>;

export type ToolName = keyof typeof TOOL_SCOPES;

/** What a turn may do: its key's scopes and whether the message allows acting. */
export type TurnGrant = { scopes: readonly Scope[]; allowAct: boolean };

const gateOf = (name: string): ToolGate | undefined => (TOOL_SCOPES as Record<string, ToolGate>)[name];

/**
 * Why this turn may not use the tool (with these arguments, when given), or null when it may.
 * Of several ways to meet it, the refusal names what the nearest one lacks.
 */
export function toolRefusal(name: string, turn: TurnGrant, args?: Record<string, unknown>): PresenceError | null {
  const gate = gateOf(name);
  if (!gate) return new PresenceError('invalid_request', `There is no tool ${name}.`);
  const exact = args && gate.forCall ? gate.forCall(args) : null;
  const refusals = (exact ? [exact] : gate.needs).map((need) => turnRefusal(turn, need));
  if (refusals.some((r) => r === null)) return null;
  const missing = (r: PresenceError | null) => (Array.isArray(r?.extra.missing) ? r.extra.missing.length : 0);
  return refusals.sort((a, b) => missing(a) - missing(b))[0] ?? null;
}

/** The tools this turn is offered: those its grant allows, in their order. */
export const offeredTools = <T extends { name: string }>(tools: readonly T[], turn: TurnGrant): T[] =>
  tools.filter((t) => toolRefusal(t.name, turn) === null);

/** What each scope would let a presence do in conversation, for telling a model what it lacks. */
const SCOPE_USES: Partial<Record<Scope, string>> = {
  'memory:read': 'say what it remembers',
  'memory:write': 'remember or forget things',
  'wallet:read': 'look up prices, pools, token safety, the wallet or its past actions, or set up price alerts and balance reports',
  'wallet:act': 'act on chain',
};

/** The scopes this turn's tools would need that its key lacks, each with what it would allow. */
export function lackedUses(turn: TurnGrant): { scope: Scope; use: string }[] {
  return (Object.entries(SCOPE_USES) as [Scope, string][])
    .filter(([scope]) => !turn.scopes.includes(scope))
    .map(([scope, use]) => ({ scope, use }));
}
