// What a message was read as: an action with its tokens and amount, a question, a standing
// intent, a question back (when acting would mean guessing), or nothing understood. Readings
// are pure data: the local planner turns them into tool calls, and an action's words for the
// intent pipeline are built here from the reading, i.e. only from what the person said.

/** How much to spend: a number as typed, or a share of what the wallet holds ("half my DAI"). */
export type Amount = { exact: string } | { share: { num: bigint; den: bigint; said: string } };

export type Reading =
  | { kind: 'swap'; amount: Amount; from: string; to: string | null }
  | { kind: 'buy_usd'; usd: string; token: string; payWith: string | null }
  | { kind: 'buy_exact'; amount: string; token: string; payWith: string | null }
  | { kind: 'wrap'; amount: Amount }
  | { kind: 'unwrap'; amount: Amount }
  | { kind: 'send'; amount: Amount; token: string; to: string }
  | { kind: 'ask'; question: string; unknown?: string }
  | { kind: 'not_now'; reply: string }
  | { kind: 'balance'; token: string | null }
  | { kind: 'price'; token: string; amount: string | null; in?: string }
  | { kind: 'safety'; token: string }
  | { kind: 'pool'; pair: string }
  | { kind: 'pools' }
  /** Every listed token's price: the market as a whole. */
  | { kind: 'prices' }
  /** Which tokens the chain lists. */
  | { kind: 'tokens' }
  /** `change`: asked to change it, which a chat never does (it is said where it is changed). */
  | { kind: 'policy'; change?: true }
  | { kind: 'address' }
  | { kind: 'pending' }
  | { kind: 'watch'; text: string }
  | { kind: 'watching' }
  /** What was said before in this conversation. */
  | { kind: 'recap' }
  /** The latest actions (of one kind, when named); `latest`: how the last one ended ("did my swap go through"). */
  | { kind: 'history'; action: HistoryAction | null; latest?: true }
  | { kind: 'stop_watching'; what: { token: string } | { id: string } | 'daily' | 'all' }
  | { kind: 'unsupported'; reply: string };

/** The kinds of action an account's history holds. */
export type HistoryAction = 'swap' | 'send' | 'wrap' | 'unwrap' | 'withdraw';

export type ActionReading = Extract<Reading, { kind: 'swap' | 'buy_usd' | 'buy_exact' | 'wrap' | 'unwrap' | 'send' }>;

export const isAction = (r: Reading | null): r is ActionReading =>
  r !== null && ['swap', 'buy_usd', 'buy_exact', 'wrap', 'unwrap', 'send'].includes(r.kind);

const S = (t: string) => t.toUpperCase();
const amountText = (a: Amount) => ('exact' in a ? a.exact : a.share.num === a.share.den ? 'all' : `${a.share.num}/${a.share.den}`);

/** A short fixed description, for the phrasing corpus: "swap 20 USDC WETH", "ask", "price WETH". */
export function describe(r: Reading | null): string {
  if (!r) return 'none';
  switch (r.kind) {
    case 'swap':
      return `swap ${amountText(r.amount)} ${S(r.from)} ${r.to ? S(r.to) : 'USD'}`;
    case 'buy_usd':
      return `buy $${r.usd} ${S(r.token)}${r.payWith ? ` with ${S(r.payWith)}` : ''}`;
    case 'buy_exact':
      return `buy ${r.amount} ${S(r.token)}${r.payWith ? ` with ${S(r.payWith)}` : ''}`;
    case 'wrap':
    case 'unwrap':
      return `${r.kind} ${amountText(r.amount)}`;
    case 'send':
      return `send ${amountText(r.amount)} ${S(r.token)} ${r.to}`;
    case 'balance':
      return `balance ${r.token ? S(r.token) : 'all'}`;
    case 'price':
      return `price ${S(r.token)}${r.amount ? ` ${r.amount}` : ''}${r.in ? ` in ${S(r.in)}` : ''}`;
    case 'safety':
      return `safety ${S(r.token)}`;
    case 'pool':
      return `pool ${r.pair}`;
    case 'watch':
      return `watch ${r.text}`;
    case 'stop_watching':
      return `stop ${typeof r.what === 'string' ? r.what : 'token' in r.what ? S(r.what.token) : r.what.id}`;
    case 'policy':
      return r.change ? 'policy change' : 'policy';
    case 'history':
      return `${r.latest ? 'latest' : 'history'}${r.action ? ` ${r.action}` : ''}`;
    case 'ask':
    case 'not_now':
    case 'unsupported':
    case 'pools':
    case 'prices':
    case 'tokens':
    case 'address':
    case 'pending':
    case 'watching':
    case 'recap':
      return r.kind;
  }
}

/**
 * The action in the intent pipeline's words ("swap 20 USDC for WETH"), once every amount is a
 * number (a share of a balance is worked out by the planner first).
 */
export function intentWords(r: ActionReading, amount: string | null = null): string {
  const n = amount ?? ('amount' in r && typeof r.amount === 'object' && 'exact' in r.amount ? r.amount.exact : '');
  switch (r.kind) {
    case 'swap':
      return r.to ? `swap ${n} ${S(r.from)} for ${S(r.to)}` : `sell ${n} ${S(r.from)}`;
    case 'buy_usd':
      return `buy $${r.usd} of ${S(r.token)}${r.payWith ? ` with ${S(r.payWith)}` : ''}`;
    case 'buy_exact':
      // The pipeline buys by value: the planner passes the USD value of the amount asked for.
      return `buy $${amount} of ${S(r.token)}${r.payWith ? ` with ${S(r.payWith)}` : ''}`;
    case 'wrap':
      return `wrap ${n} ETH`;
    case 'unwrap':
      return `unwrap ${n} WETH`;
    case 'send':
      return `send ${n} ${S(r.token)} to ${r.to}`;
  }
}
