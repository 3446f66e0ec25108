// Scope checks. A route declares what it needs; this decides, in one place. Conversation
// uses the same vocabulary for what a turn may do (see conversation/tool-scopes.ts): a need
// is some scopes, sometimes with a turn sent with allow_act as well.

import type { Scope } from '@presence/protocol';
import { PresenceError } from '../errors/presence-error';
import { ALLOW_ACT_NEEDED, scopesMissing } from '../replies/replies';
import type { Principal } from './key-service';

/** What a route requires: nothing beyond a valid key, one scope, or any one of several. */
export type ScopeRequirement = { anyOf: readonly Scope[] } | Scope | 'key';

export function requireScope(p: Principal, need: ScopeRequirement): void {
  if (need === 'key') return;
  const options = typeof need === 'string' ? [need] : need.anyOf;
  if (options.some((s) => p.scopes.includes(s))) return;
  const named = options.join(' or ');
  throw new PresenceError('scope', `this key lacks ${named}`, { extra: { missing: [...options] } });
}

/** What one thing done in a turn needs: all of `scopes`, and a turn with allow_act when `allowAct`. */
export type TurnNeed = { scopes: readonly Scope[]; allowAct?: boolean };

/** The scopes of `need` a key does not hold, in the need's order. */
export const lackedScopes = (have: readonly Scope[], need: readonly Scope[]): Scope[] => need.filter((s) => !have.includes(s));

/**
 * Why a turn may not do what needs `need`, or null when it may. A missing scope is named in
 * words the presence can say as they are ("That needs the memory:write scope, which this key
 * does not have."); a missing allow_act is an invalid_request, as on the route.
 */
export function turnRefusal(turn: { scopes: readonly Scope[]; allowAct: boolean }, need: TurnNeed): PresenceError | null {
  const missing = lackedScopes(turn.scopes, need.scopes);
  if (missing.length > 0) return new PresenceError('scope', scopesMissing(missing), { extra: { missing } });
  if (need.allowAct && !turn.allowAct) return new PresenceError('invalid_request', ALLOW_ACT_NEEDED);
  return null;
}
