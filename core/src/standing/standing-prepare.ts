// Making a standing intent: checked against the turn's and key's scopes, the account's cap
// and the token list, then built as a record for the caller to store (standing-service.ts).
import type { Scope } from '@presence/protocol';
import { parseUnits, USD_DECIMALS } from '../chain/amounts';
import { resolveToken, type TokenList } from '../chain/token-list';
import type { Clock } from '../clock/clock';
import { PresenceError } from '../errors/presence-error';
import { type ParsedIntent, parseIntent } from '../intents/intent-parser';
import type { WalletDomain } from '../intents/wallet-domain';
import type { Caller } from '../keys/caller';
import { randomBase62 } from '../keys/key-secret';
import { turnRefusal } from '../keys/scopes';
import { unknownToken } from '../replies/replies';
import type { StandingRecord } from '../store/documents';
import type { StandingSpec } from './standing-parser';
import { standingNeed } from './standing-scopes';
import { nextDailyAt } from './standing-time';

/** Who creates a standing intent: the authority an acting one keeps re-checking when it fires. */
export type StandingOwner = Caller & { keyId: string | null; scopes: readonly Scope[] };

/**
 * An acting standing intent's action, checked as far as it can be without a quote: its
 * tokens are listed and its amount fits their decimals and is not zero. (Balances and the
 * policy are checked when it fires.)
 */
function checkAction(parsed: ParsedIntent, list: TokenList): void {
  const decimalsOf = (symbol: string) => {
    if (symbol.toUpperCase() === 'ETH') return 18;
    try {
      return resolveToken(list, symbol).decimals;
    } catch {
      throw new PresenceError('intent_unresolved', unknownToken(symbol, list));
    }
  };
  const [amount, decimals, others] =
    parsed.kind === 'swap'
      ? [parsed.amount, decimalsOf(parsed.tokenIn), [parsed.tokenOut]]
      : parsed.kind === 'buy'
        ? [parsed.usd, USD_DECIMALS, [parsed.token, parsed.payWith]]
        : parsed.kind === 'sell'
          ? [parsed.amount, decimalsOf(parsed.token), [parsed.for]]
          : parsed.kind === 'send'
            ? [parsed.amount, decimalsOf(parsed.token), []]
            : [parsed.amount, 18, []];
  for (const s of others) if (s) decimalsOf(s);
  let value: bigint;
  try {
    value = parseUnits(amount, decimals);
  } catch {
    throw new PresenceError('intent_unresolved', `"${amount}" has more decimal places than that token has (${decimals})`);
  }
  if (value === 0n) throw new PresenceError('intent_unresolved', 'the amount must be more than zero');
}

/**
 * Checks a standing intent and builds its record without storing it (see the service's
 * `commit`). It needs the scopes of what it will do when it fires (standing-scopes.ts): one
 * that acts needs the turn to allow acting and the key to hold wallet:act, otherwise a message
 * could arrange an action that later runs unasked. The tokens it names must be listed now, not
 * found missing when it fires. At the cap it is refused here already (409, limit
 * standing_per_account), so a turn can say so; `staged` counts the ones the caller has prepared
 * but not yet committed.
 */
export async function prepareStanding(
  {
    wallet,
    clock,
    assertStandingRoom,
  }: { wallet: WalletDomain | null; clock: Clock; assertStandingRoom: (owner: StandingOwner, staged: number) => Promise<void> },
  owner: StandingOwner,
  text: string,
  spec: StandingSpec,
  opts: { allowAct: boolean; id?: string; staged?: number },
): Promise<StandingRecord> {
  const refused = turnRefusal({ scopes: owner.scopes, allowAct: opts.allowAct }, standingNeed(spec));
  if (refused) throw refused;
  await assertStandingRoom(owner, opts.staged ?? 0);
  const trigger = { ...spec.trigger };
  if (trigger.kind === 'price') {
    if (!wallet) throw new PresenceError('chain_unavailable', 'no chain is configured, so prices cannot be watched');
    try {
      trigger.token = resolveToken(wallet.tokenList, trigger.token).symbol;
    } catch {
      throw new PresenceError('intent_unresolved', unknownToken(trigger.token, wallet.tokenList));
    }
  }
  if (spec.action.kind === 'act' && wallet) checkAction(parseIntent(spec.action.intent), wallet.tokenList);
  const mayAct = owner.scopes.includes('wallet:act');
  const now = clock.now();
  return {
    id: opts.id ?? `st_${randomBase62(12)}`,
    account_id: owner.accountId,
    text,
    trigger,
    action: spec.action,
    may_act: mayAct && opts.allowAct,
    armed: true,
    next_at: trigger.kind === 'daily' ? nextDailyAt(trigger.at, now) : null,
    fired_count: 0,
    last_fired_at: null,
    state: 'active',
    created_at: now,
    created_by: owner.keyId,
    pending: [],
  };
}
