// What a deny rule's policy_block says, as a person would: which actions the rule stops, and what
// the policy still allows when the rule stops a whole action. Not how to change it: the same text
// reaches a chat, where an HTTP verb means nothing (each surface names its own way). The
// detail reaches API users as problem+json `detail` and every surface after a framing of its
// own ("Blocked by spend policy", "Your spend policy stops that: …"), so it is one clause that
// does not repeat "policy denies", and names only what the account wrote in its own policy.
import type { PolicyDocument } from '@presence/protocol';

type DenyRule = PolicyDocument['deny'][number];
type Action = Exclude<NonNullable<DenyRule['action']>, '*'>;

const NOUNS: Record<Action, string> = { swap: 'swaps', send: 'sends', wrap: 'wraps', unwrap: 'unwraps', withdraw: 'withdrawals' };
const ACTIONS = Object.keys(NOUNS) as Action[];

/** `a, b and c`. */
const listed = (words: readonly string[]) =>
  words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;

/** The rule's actions in words: `sends`, `swaps involving DAI`, `actions involving SCAM`, `sends to 0x…`. */
function stopped(rule: DenyRule): string {
  const every = rule.action === undefined || rule.action === '*';
  if (every && rule.token === undefined && rule.to === undefined) return 'no actions are allowed';
  const what = [every ? 'actions' : NOUNS[rule.action as Action], rule.token && `involving ${rule.token}`, rule.to && `to ${rule.to}`]
    .filter(Boolean)
    .join(' ');
  return `${what} are not allowed`;
}

/** Actions no rule stops outright (by action alone); withdrawals only where an address is allowlisted. */
function allowedActions(policy: PolicyDocument): string[] {
  const whole = policy.deny.filter((r) => r.token === undefined && r.to === undefined).map((r) => r.action);
  if (whole.includes('*')) return [];
  return ACTIONS.filter((a) => !whole.includes(a) && (a !== 'withdraw' || policy.withdraw_allowlist.length > 0)).map((a) => NOUNS[a]);
}

export function denyDetail(policy: PolicyDocument, rule: DenyRule): string {
  const wholeAction = rule.action !== undefined && rule.action !== '*' && rule.token === undefined && rule.to === undefined;
  const allowed = wholeAction ? allowedActions(policy) : [];
  const also = allowed.length > 0 ? ` (your policy allows ${listed(allowed)})` : '';
  return `${stopped(rule)}${also}`;
}
