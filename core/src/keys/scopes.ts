// Scope checks. A route declares what it needs; this decides, in one place.
import type { Scope } from '@presence/protocol';
import { PresenceError } from '../errors/presence-error';
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
