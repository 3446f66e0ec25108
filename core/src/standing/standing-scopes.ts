// What a standing intent needs of the turn that creates it: the scopes of what it will do
// when it fires. Watching a price or reporting the balance reads the wallet's views
// (wallet:read), as asking for them in a message would; acting needs wallet:act and a turn
// sent with allow_act, as acting in a message does (its trigger's price is read the way an
// intent's quote is). Listing and cancelling standing intents need only talk.
import type { TurnNeed } from '../keys/scopes';
import type { StandingSpec } from './standing-parser';

export function standingNeed(spec: StandingSpec): TurnNeed {
  if (spec.action.kind === 'act') return { scopes: ['wallet:act'], allowAct: true };
  return { scopes: ['wallet:read'] };
}

/** Every kind of standing intent a turn might create: one of these must be met to offer the tool. */
export const STANDING_NEEDS: readonly TurnNeed[] = [{ scopes: ['wallet:read'] }, { scopes: ['wallet:act'], allowAct: true }];
