// The `local` planner's answers to what a message was read as (understanding/): questions
// answered from the chain views and the wallet, standing intents created, listed and
// stopped, and actions submitted in the intent pipeline's own words — built only from the
// reading, with a share of a balance ("half my DAI") worked out from the wallet and an amount
// to receive ("buy 0.01 ETH") valued at the block's price first. Questions back are said as
// they are: nothing is called.
import { readableDecimal, readableSummary, readableUsd, readableUsdIn } from '@presence/protocol';
import { formatUnits, formatUsd, parseUnits, USD_DECIMALS } from '../chain/amounts';
import { PresenceError } from '../errors/presence-error';
import type { ActionView } from '../intents/action-history';
import { actionOutcome, EXAMPLES, holdings, howToStop, readable, STANDING_FORMS, whenUtc } from '../replies/replies';
import { parseStanding } from '../standing/standing-parser';
import { readMessage } from '../understanding/read-message';
import { type ActionReading, intentWords, isAction, type Reading } from '../understanding/reading';
import { type LocalTurn, mustMay, problemOf, Say, sentence } from './local-turn';

type TokenRow = { symbol: string; decimals: number; price_usd: string | null };
type Standing = { id: string; text: string; trigger: { kind: string; token?: string } };

const upper = (s: string) => s.toUpperCase();
/** A pool's depth in whole dollars: cents of a depth only make a list of pools uneven ("6,000,016.02", "6,000,016"). */
const depthUsd = (n: number) => readableUsd(n, 0);
const priceNumber = (p: string) => p.replace(/ USD$/, '').replaceAll(',', '');
const rowOf = (tokens: TokenRow[], symbol: string) =>
  tokens.find((x) => upper(x.symbol) === upper(symbol) || (upper(symbol) === 'ETH' && x.symbol === 'WETH'));

/** Reads the message; a token the common names do not include is looked up in the chain's list before asking about it. */
export async function readWithList(text: string, t: LocalTurn): Promise<Reading | null> {
  const first = readMessage(text, { presenceName: t.ctx.presenceName });
  if (!(first?.kind === 'ask' && first.unknown && t.offered('chain.tokens'))) return first;
  const list = await t.call('chain.tokens');
  if (problemOf(list)) return first;
  return readMessage(text, { presenceName: t.ctx.presenceName, known: list.tokens.map((x: TokenRow) => x.symbol) });
}

export async function answerReading(r: Reading, t: LocalTurn): Promise<string> {
  if (isAction(r)) return act(r, t);
  const { call } = t;
  switch (r.kind) {
    case 'ask':
      return r.question;
    case 'not_now':
    case 'unsupported':
      return r.reply;
    case 'balance':
      return answerBalance(r, t);
    case 'policy':
      return r.change ? `${POLICY_CHANGE} ${await answerPolicy(t)}` : answerPolicy(t);
    case 'address':
    case 'pending':
      return answerWallet(r.kind, t);
    case 'price':
      return answerPrice(r, t);
    case 'safety': {
      const s = await call('chain.safety', { token: upper(r.token) });
      const p = problemOf(s);
      if (p) return p.type === 'not_found' ? notListed(upper(r.token).slice(0, 40), t) : `I can't check ${upper(r.token)}: ${p.detail}`;
      const verdict = s.verdict === 'safe' ? 'looks safe' : s.verdict === 'unsafe' ? 'is NOT safe' : 'needs caution';
      const why = s.reasons.join('; ');
      return `${s.token} ${verdict} (block ${s.as_of_block}). ${why.charAt(0).toUpperCase()}${why.slice(1)}.`;
    }
    case 'pool': {
      const v = await call('chain.pools', { pair: r.pair });
      const p = problemOf(v);
      if (p) return p.type === 'not_found' ? noSuchPool(r.pair.slice(0, 81), t) : `I can't find that pool: ${p.detail}`;
      const pool = v.pools[0];
      const reserves = Object.values(pool.reserves).map(String).map(readable).join(' and ');
      return `${pool.pair} holds ${reserves}, about ${depthUsd(pool.depth_usd)} deep, at ${pool.price} (block ${pool.as_of_block}).`;
    }
    case 'pools': {
      const v = await call('chain.pools');
      const p = problemOf(v);
      if (p) return `I can't list the pools: ${p.detail}`;
      return `Pools at block ${v.as_of_block}: ${v.pools.map((x: { pair: string; depth_usd: number }) => `${x.pair} (${depthUsd(x.depth_usd)} deep)`).join(', ')}.`;
    }
    case 'watch':
      return watch(asTyped(t.ctx.text) ?? r.text, t);
    case 'prices':
      return answerPrices(t);
    case 'tokens':
      return answerTokens(t);
    case 'watching':
      return answerWatching(t);
    case 'recap':
      return recap(t.ctx.history);
    case 'history':
      return answerHistory(r, t);
    case 'stop_watching':
      return stop(r.what, t);
  }
}

/** What the wallet holds (of one token, or all of it), and what today leaves to spend. */
async function answerBalance(r: Extract<Reading, { kind: 'balance' }>, { call }: LocalTurn): Promise<string> {
  const w = await call('wallet.read');
  const p = problemOf(w);
  if (p) return `I can't read the wallet: ${p.detail}`;
  if (!r.token) return `You hold ${holdings(w)}. Spend policy: ${w.policy.spend}, ${readableUsd(w.policy.left_today)} left today.`;
  const b = w.balances.find((x: { symbol: string }) => upper(x.symbol) === upper(r.token as string));
  if (!b || /^0 /.test(b.amount)) return `You hold no ${upper(r.token)} (block ${w.as_of_block}).`;
  return `You hold ${readable(b.amount)}${b.value_usd ? ` (${readableUsd(b.value_usd)})` : ''} (block ${w.as_of_block}).`;
}

/** One past action and where it stands: "swap 20 USDC (20.00 USD) for about … at 14:10 UTC: executed in block 12 (transaction 0x…)". */
function actionStory(a: ActionView): string {
  const what = `${readableSummary(a.summary, a.amount, readableUsd(a.value_usd))} at ${whenUtc(a.created_at)}`;
  switch (a.status) {
    case 'executed':
      return `${what}: executed in block ${a.block} (transaction ${a.tx})`;
    case 'held':
      return `${what}: waiting for your approval`;
    case 'executing':
      return `${what}: sent, not yet in a block`;
    case 'denied':
      return `${what}: you denied it, so nothing was sent`;
    case 'expired':
      return `${what}: not approved in time, so nothing was sent`;
    case 'failed':
      return `${what}: failed${a.reason ? ` (${a.reason})` : ''}`;
  }
}

/** How many of the latest actions a list of them tells. */
const HISTORY_TOLD = 5;

/** The latest actions (of one kind, when named), or how the last one ended. */
async function answerHistory(r: Extract<Reading, { kind: 'history' }>, { call }: LocalTurn): Promise<string> {
  const v = await call('wallet.actions');
  const p = problemOf(v);
  if (p) return `I can't read your actions: ${p.detail}`;
  const all = v.actions as ActionView[];
  if (all.length === 0) return `I haven't taken any actions for you yet. Say, for example, "${EXAMPLES.swap}".`;
  const actions = all.filter((a) => !r.action || a.action === r.action);
  const one = r.action === 'withdraw' ? 'withdrawal' : (r.action ?? 'action');
  if (actions.length === 0) return `None of your latest ${all.length === 1 ? 'action is a' : `${all.length} actions is a`} ${one}.`;
  if (r.latest) return `Your last ${one}: ${actionStory(actions[0] as ActionView)}.`;
  const told = actions.slice(0, HISTORY_TOLD);
  return `Your latest ${told.length === 1 ? one : `${one}s`}, newest first: ${told.map(actionStory).join('; ')}.`;
}

/** Where to fund the wallet, or how many actions wait for approval (and where they are answered). */
async function answerWallet(kind: 'address' | 'pending', { call }: LocalTurn): Promise<string> {
  const w = await call('wallet.read');
  const p = problemOf(w);
  if (p) return `I can't read the wallet: ${p.detail}`;
  if (kind === 'address') return `Your wallet's address is ${w.address}, on ${w.chain.name} (chain id ${w.chain.id}).`;
  const n = w.pending_confirmations as number;
  if (n === 0) return 'Nothing is waiting for your approval.';
  return `${n === 1 ? 'One action is' : `${n} actions are`} waiting for your approval. Approve or deny with the buttons shown with each (in the CLI, presence confirm list).`;
}

type PolicyState = { spend: string; per_tx_cap: string; confirm_over: string; daily_cap: string; spent_today: string; left_today: string };

/** Policy changes are never a tool (docs/behaviour.md): a chat cannot widen what a chat may spend. */
const POLICY_CHANGE =
  "I don't change your spend policy from a chat: it is set with an admin key (`presence policy set FILE` in the CLI, or PUT /v1/wallet/policy), so nothing said here can widen what is spent.";

/** The spend policy in words: what one action and one day may spend, what waits for approval, what is left today. */
async function answerPolicy({ call }: LocalTurn): Promise<string> {
  const w = await call('wallet.read');
  const p = problemOf(w);
  if (p) return `I can't read the spend policy: ${p.detail}`;
  const s = w.policy as PolicyState;
  if (s.spend === 'locked') return 'Your spend policy is locked: I make no spending actions at all until it is changed.';
  const each =
    s.spend === 'confirm_all' ? 'every action waits for your approval' : `an action over ${s.confirm_over} waits for your approval`;
  return readableUsdIn(
    `Your spend policy: up to ${s.per_tx_cap} an action and ${s.daily_cap} a day; ${each}. Spent today: ${s.spent_today}, so ${s.left_today} is left.`,
  );
}

/** A token the chain does not list: what it does list, as the action path says it. */
async function notListed(token: string, { call }: LocalTurn): Promise<string> {
  const v = await call('chain.tokens');
  const known = problemOf(v) ? '' : ` I know ${v.tokens.map((x: TokenRow) => x.symbol).join(', ')}.`;
  return `I don't know ${token} on this chain.${known}`;
}

/** A pair with no pool (or a token the chain does not list): the pools there are. */
async function noSuchPool(pair: string, { call }: LocalTurn): Promise<string> {
  const v = await call('chain.pools');
  const pools = problemOf(v) ? '' : ` The pools are ${v.pools.map((x: { pair: string }) => x.pair).join(', ')}.`;
  return `There is no ${pair} pool on this chain.${pools}`;
}

/** A token's price at the block, or what an amount of it is worth. */
async function answerPrice(r: Extract<Reading, { kind: 'price' }>, { call }: LocalTurn): Promise<string> {
  const sym = upper(r.token).slice(0, 40);
  const v = await call('chain.tokens');
  const p = problemOf(v);
  if (p) return `I can't look up prices: ${p.detail}`;
  const row = rowOf(v.tokens, sym);
  if (!row) return `I don't know ${sym}. I know ${v.tokens.map((x: TokenRow) => x.symbol).join(', ')}.`;
  if (!row.price_usd) return `${sym} has no pool to price it (block ${v.as_of_block}).`;
  const worth = (parseUnits(r.amount ?? '1', 18) * parseUnits(priceNumber(row.price_usd), USD_DECIMALS)) / 10n ** 18n;
  const other = r.in ? rowOf(v.tokens, r.in) : undefined;
  // "how much dai is 1 weth": the USD value, then that value in the other token at its own price
  const inOther = other?.price_usd
    ? `, about ${readableDecimal(formatUnits((worth * 10n ** 18n) / parseUnits(priceNumber(other.price_usd), USD_DECIMALS), 18))} ${upper(r.in as string)}`
    : '';
  if (!r.amount) return `${sym} is ${readableUsd(row.price_usd)}${inOther} (block ${v.as_of_block}).`;
  return `${r.amount} ${sym} is ${readableUsd(formatUsd(worth))}${inOther} (${readableUsd(row.price_usd)} each, block ${v.as_of_block}).`;
}

/** Every listed token's price at the block; one without a pool says so. */
async function answerPrices({ call }: LocalTurn): Promise<string> {
  const v = await call('chain.tokens');
  const p = problemOf(v);
  if (p) return `I can't look up prices: ${p.detail}`;
  const each = (v.tokens as TokenRow[]).map((x) => `${x.symbol} ${x.price_usd ? readableUsd(x.price_usd) : '(no pool to price it)'}`);
  return `Prices at block ${v.as_of_block}: ${each.join(', ')}.`;
}

/** The tokens the chain lists, with what to ask next. */
async function answerTokens({ call }: LocalTurn): Promise<string> {
  const v = await call('chain.tokens');
  const p = problemOf(v);
  if (p) return `I can't list the tokens: ${p.detail}`;
  const symbols = (v.tokens as TokenRow[]).map((x) => x.symbol);
  return `The tokens I know here: ETH, ${symbols.join(', ')}. Ask "how's the market" for their prices, or "is ${symbols.at(-1) ?? 'WETH'} safe" before trading one you don't know.`;
}

const RECAP_TURNS = 3;
const RECAP_CLIP = 80;

/** What the person said in the last turns the planner is shown: their words only, never a reply again. */
function recap(history: readonly { user: string }[]): string {
  const said = history.slice(-RECAP_TURNS).map(({ user }) => {
    const one = user.replace(/\s+/g, ' ').trim();
    return `"${one.length > RECAP_CLIP ? `${one.slice(0, RECAP_CLIP - 1)}…` : one}"`;
  });
  if (said.length === 0) return 'This is the start of our conversation: there is nothing earlier to go back to.';
  if (said.length === 1) return `Before this you said ${said[0]}.`;
  return `Your last ${said.length} messages before this one, oldest first: ${said.join(', ')}.`;
}

/** What standing intents the presence keeps, and how to stop one. */
async function answerWatching({ call }: LocalTurn): Promise<string> {
  const list = await call('standing.list');
  const p = problemOf(list);
  if (p) return `I can't list them: ${p.detail}`;
  if (!Array.isArray(list) || list.length === 0)
    return `I'm not watching anything for you. Say "tell me when WETH is below 2500 USD" to start.`;
  const items = (list as Standing[]).map((s) => `"${s.text}" (${s.id})`).join('; ');
  const first = list[0] as Standing;
  return `I'm keeping an eye on ${list.length === 1 ? 'one thing' : `${list.length} things`} for you: ${items}. ${howToStop(first.text, first.id).replace('To stop,', 'To stop one,')}`;
}

/** The message as typed, when the standing parser reads it as it is: it is then kept in the person's own words. */
function asTyped(text: string): string | null {
  const typed = text.trim().replace(/\s+/g, ' ');
  try {
    return parseStanding(typed) ? typed : null;
  } catch {
    return null;
  }
}

/** Sets up a standing intent from the standing parser's words (or says why it cannot). */
/** A standing intent already kept that reads the same (said twice, it would fire twice). */
async function watchingAlready(spec: NonNullable<ReturnType<typeof parseStanding>>, t: LocalTurn): Promise<Standing | null> {
  if (!t.offered('standing.list')) return null;
  const list = await t.call('standing.list');
  if (problemOf(list) || !Array.isArray(list)) return null;
  const wanted = JSON.stringify(spec);
  return (
    (list as Standing[]).find((s) => {
      try {
        return JSON.stringify(parseStanding(s.text)) === wanted;
      } catch {
        return false;
      }
    }) ?? null
  );
}

export async function watch(text: string, t: LocalTurn): Promise<string> {
  let spec: ReturnType<typeof parseStanding>;
  try {
    spec = parseStanding(text);
  } catch (e) {
    if (e instanceof PresenceError && e.status < 500) return `I can't set that up: ${sentence(e.detail)}`;
    throw e;
  }
  if (!spec) return STANDING_FORMS;
  mustMay('standing.create', t.ctx, { text });
  const same = await watchingAlready(spec, t);
  if (same) return `I'm already watching that (${same.id}): "${same.text}". ${howToStop(same.text, same.id)}`;
  const r = await t.call('standing.create', { text });
  const p = problemOf(r);
  if (p) return `I can't set that up: ${sentence(p.detail)}`;
  return `Done — I'll keep watching (${r.id}): "${text}". ${howToStop(text, r.id)}`;
}

async function stop(what: Extract<Reading, { kind: 'stop_watching' }>['what'], t: LocalTurn): Promise<string> {
  mustMay('standing.cancel', t.ctx);
  const list = await t.call('standing.list');
  const p = problemOf(list);
  if (p) return `I can't list them: ${p.detail}`;
  const all = (Array.isArray(list) ? list : []) as Standing[];
  const chosen = all.filter((s) =>
    what === 'all'
      ? true
      : what === 'daily'
        ? s.trigger.kind === 'daily'
        : 'id' in what
          ? s.id === what.id
          : s.trigger.kind === 'price' && upper(s.trigger.token ?? '') === upper(what.token),
  );
  const named = what === 'all' ? 'anything' : what === 'daily' ? 'a daily report' : 'id' in what ? what.id : upper(what.token);
  if (chosen.length === 0) return `I wasn't watching ${named} for you, so there is nothing to stop.`;
  for (const s of chosen) {
    const r = await t.call('standing.cancel', { id: s.id });
    const q = problemOf(r);
    if (q) return `I couldn't stop "${s.text}": ${q.detail}`;
  }
  return `Stopped: ${chosen.map((s) => `"${s.text}"`).join('; ')}.`;
}

/** A policy_block's detail for a chat: the policy field it ends with, for API users, left out. */
const policyWords = (p: { detail: string; rule?: unknown }) =>
  typeof p.rule === 'string' ? p.detail.replace(` (${p.rule})`, '') : p.detail;

async function act(r: ActionReading, t: LocalTurn): Promise<string> {
  const { call, ctx } = t;
  mustMay('intent.submit', ctx);
  let amount: string | null = null;
  let before = '';
  if ('amount' in r && typeof r.amount === 'object' && 'share' in r.amount) {
    const { num, den, said } = r.amount.share;
    const symbol = r.kind === 'wrap' ? 'ETH' : r.kind === 'unwrap' ? 'WETH' : upper(r.kind === 'swap' ? r.from : r.token);
    mustMay('wallet.read', ctx);
    const [w, v] = [await call('wallet.read'), await call('chain.tokens')];
    const p = problemOf(w) ?? problemOf(v);
    if (p) return `I can't read the wallet to work out ${said} of your ${symbol}: ${p.detail}`;
    const decimals = symbol === 'ETH' ? 18 : v.tokens.find((x: TokenRow) => upper(x.symbol) === symbol)?.decimals;
    const line = w.balances.find((b: { symbol: string }) => upper(b.symbol) === symbol);
    const held = line && decimals !== undefined ? parseUnits(String(line.amount).split(' ')[0] as string, decimals) : 0n;
    const part = (held * num) / den;
    if (part === 0n) return `You hold no ${symbol}, so there is nothing to take ${said} of.`;
    amount = formatUnits(part, decimals as number);
    before = `${said === 'all' ? 'All' : `${said.charAt(0).toUpperCase()}${said.slice(1)} of`} your ${symbol} is ${readableDecimal(amount)} ${symbol}. `;
  } else if (r.kind === 'buy_exact') {
    mustMay('chain.tokens', ctx);
    const v = await call('chain.tokens');
    const p = problemOf(v);
    if (p) return `I can't price ${upper(r.token)}: ${p.detail}`;
    const row = rowOf(v.tokens, r.token);
    if (!row?.price_usd)
      return `I can't price ${upper(r.token)}, so I can't tell what ${r.amount} of it costs. Say what to spend instead, like "buy $20 of ${upper(r.token)}".`;
    // The pipeline buys by value: the amount asked for, valued at this block, rounded up to the cent.
    const usd = (parseUnits(r.amount, 18) * parseUnits(priceNumber(row.price_usd), USD_DECIMALS)) / 10n ** 18n;
    const cent = 10n ** BigInt(USD_DECIMALS - 2);
    amount = formatUnits(((usd + cent - 1n) / cent) * cent, USD_DECIMALS, 2);
    before = `${r.amount} ${upper(r.token)} is about ${readableUsd(amount)} at block ${v.as_of_block}, so I'm buying that much. `;
  }
  const res = await call('intent.submit', { do: intentWords(r, amount) });
  const p = problemOf(res);
  if (p)
    return p.type === 'policy_block'
      ? `Your spend policy stops that: ${readableUsdIn(policyWords(p))}.`
      : `I couldn't do that: ${p.detail}`;
  return `${before}${actionOutcome(res)}`;
}

export { Say };
