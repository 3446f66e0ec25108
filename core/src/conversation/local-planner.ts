// The `local` planner: deterministic, no network. It recognises the message forms listed in
// DESIGN.md (prices and depth, holdings, safety, actions, memory, standing intents, small
// talk), answers from real chain views through the same tools a model would use, and
// streams its reply in several pieces. It uses only the tools the turn is offered
// (tool-scopes.ts): asked for something its key's scopes do not allow, it says which scope is
// missing and calls nothing. Whatever is typed gets a reply in words: arguments a tool would
// refuse (a note over its length, an overlong action) and problems with what was asked are
// answered, never thrown.

import { MemoryKey } from '@presence/protocol';
import type { z } from 'zod';
import { PresenceError, type Problem } from '../errors/presence-error';
import { parseIntent } from '../intents/intent-parser';
import { actionOutcome, EXAMPLES, holdings, STANDING_FORMS } from '../replies/replies';
import { parseStanding, STANDING_OPENING } from '../standing/standing-parser';
import type { Planner, PlannerContext, PlannerIO } from './planner-port';
import { offeredTools, type ToolName, toolRefusal } from './tool-scopes';

// biome-ignore lint/suspicious/noExplicitAny: tool results are read by the rule that called the tool
type Call = (name: ToolName, args?: Record<string, unknown>) => Promise<any>;
type Rule = { test: RegExp; answer: (m: RegExpExecArray, call: Call, ctx: PlannerContext) => Promise<string> | string };

/** A reply that ends the turn before any tool runs: a refusal (`refused`), or a problem with what was asked. */
class Say extends Error {
  constructor(
    message: string,
    readonly refused = false,
  ) {
    super(message);
  }
}

/** "a price to watch must be more than 0 USD" → "A price to watch must be more than 0 USD." */
const sentence = (detail: string) => {
  const t = detail.trim();
  return `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;
};

/** What each tool argument is, in words, for answers about arguments a tool refuses. */
const ARG_NOUNS: Record<string, string> = {
  note: 'A note',
  key: 'A memory key',
  text: 'A standing intent',
  do: 'An action',
  token: 'A token name',
  pair: 'A pair',
};

/** The first reason the arguments were refused, as something to say: "A note can be at most 500 characters." */
function argsProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  const noun = ARG_NOUNS[String(issue?.path[0])] ?? 'That';
  if (issue?.code === 'too_big' && issue.origin === 'string') return `${noun} can be at most ${issue.maximum} characters.`;
  return `${noun} is not something I can use: ${issue?.message ?? 'it is not valid'}.`;
}

const problemOf = (r: unknown): Problem | null => ((r as { error?: Problem })?.error ? (r as { error: Problem }).error : null);
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);

/** A memory key for "remember …": a mentioned token makes it a preference, else a topic (null: nothing to name it by). */
function keyFor(note: string, touched: string[]): string | null {
  const token = touched.find((k) => k.startsWith('token:'));
  if (token) return `pref:${token.slice(6)}`;
  const pair = touched.find((k) => k.startsWith('pair:'));
  if (pair) return pair;
  const name = slug(note.split(' ').slice(0, 4).join(' '));
  return name ? `topic:${name}` : null;
}

function forgetKey(what: string, touched: string[]): string | null {
  const w = what.trim();
  if (MemoryKey.safeParse(w).success) return w;
  const name = slug(w);
  return touched.find((k) => k.startsWith('pair:')) ?? touched.find((k) => k.startsWith('token:')) ?? (name ? `topic:${name}` : null);
}

const rules: Rule[] = [
  {
    test: /^(?:please )?remember(?: that)? (.+)$/i,
    async answer(m, call, ctx) {
      const note = (m[1] as string).replace(/[.!]+$/, '').trim();
      const key = keyFor(note, ctx.touched);
      if (!key || /^that$/i.test(note)) return 'What should I remember? Say it as "remember that I prefer DAI".';
      const r = await call('memory.remember', { key, note });
      const p = problemOf(r);
      return p ? `I could not remember that: ${p.detail}` : `Noted — I'll remember that ${note} (kept under ${key}).`;
    },
  },
  {
    test: /^(?:please )?forget(?: about)? (.+?)[.!]*$/i,
    async answer(m, call, ctx) {
      const key = forgetKey(m[1] as string, ctx.touched);
      if (!key) return 'What should I forget? Name it as "forget pair:WETH-USDC" or "forget DAI".';
      const r = await call('memory.forget', { key });
      return problemOf(r) ? `I had nothing stored under ${key}.` : `Forgotten: ${key}.`;
    },
  },
  {
    test: /what do you (?:remember|know about me)|^(?:show )?(?:your )?memory\??$/i,
    async answer(_m, call) {
      const r = await call('memory.list');
      const p = problemOf(r);
      if (p) return `I can't read my memory: ${p.detail}`;
      const pinned = r.pinned.map((e: { key: string; note: string }) => (e.note ? `${e.key} (${e.note})` : e.key));
      const fading = r.fading.map((e: { key: string; days_left: number }) => `${e.key} (${e.days_left} days left)`);
      if (pinned.length + fading.length === 0) return 'I do not remember anything yet.';
      return [pinned.length ? `Pinned: ${pinned.join(', ')}.` : '', fading.length ? `Fading: ${fading.join(', ')}.` : '']
        .filter(Boolean)
        .join(' ');
    },
  },
  {
    test: /^(?:what are |list |show )?(?:my )?(?:standing intents|alerts|reminders)\??$/i,
    async answer(_m, call) {
      const r = await call('standing.list');
      const p = problemOf(r);
      if (p) return `I can't list them: ${p.detail}`;
      if (!Array.isArray(r) || r.length === 0) return 'You have no standing intents.';
      return `Standing: ${r.map((s: { id: string; text: string }) => `${s.id}: ${s.text}`).join('; ')}.`;
    },
  },
  {
    test: STANDING_OPENING,
    async answer(m, call, ctx) {
      const text = m.input.trim().replace(/\s+/g, ' ');
      let spec: ReturnType<typeof parseStanding>;
      try {
        spec = parseStanding(text);
      } catch (e) {
        if (e instanceof PresenceError && e.status < 500) return `I can't set that up: ${sentence(e.detail)}`;
        throw e;
      }
      if (!spec) return STANDING_FORMS;
      const refused = toolRefusal('standing.create', ctx, { text });
      if (refused) throw new Say(refused.detail, true);
      const r = await call('standing.create', { text });
      const p = problemOf(r);
      if (p) return `I can't set that up: ${sentence(p.detail)}`;
      return `Done — I'll keep watching (${r.id}): "${text}". Cancel it any time with DELETE /v1/standing/${r.id}.`;
    },
  },
  {
    test: /^(?:please |could you |can you )?(?:swap|exchange|trade|convert|buy|sell|wrap|unwrap|send|transfer|pay)\b/i,
    async answer(m, call, ctx) {
      try {
        parseIntent(m.input);
      } catch (e) {
        if (e instanceof PresenceError && e.status < 500) return e.detail;
        throw e;
      }
      const refused = toolRefusal('intent.submit', ctx);
      if (refused) throw new Say(refused.detail, true);
      const r = await call('intent.submit', { do: m.input.trim() });
      const p = problemOf(r);
      if (p) return p.type === 'policy_block' ? `Your spend policy stops that: ${p.detail}.` : `I couldn't do that: ${p.detail}`;
      return actionOutcome(r);
    },
  },
  {
    test: /\bis (\w+) (?:safe|a scam|legit)\b|\bsafety of (\w+)|\bcheck (?:token )?(\w+)\b/i,
    async answer(m, call) {
      const token = (m[1] ?? m[2] ?? m[3]) as string;
      const r = await call('chain.safety', { token });
      const p = problemOf(r);
      if (p) return `I can't check ${token}: ${p.detail}`;
      const verdict = r.verdict === 'safe' ? 'looks safe' : r.verdict === 'unsafe' ? 'is NOT safe' : 'needs caution';
      return `${r.token} ${verdict} (block ${r.as_of_block}). ${r.reasons.join('; ')}.`;
    },
  },
  {
    test: /\b(?:how deep|depth|liquidity)\b.*?\b([A-Za-z][A-Za-z0-9]*)[-/ ]([A-Za-z][A-Za-z0-9]*)\??$/i,
    async answer(m, call) {
      const pair = `${m[1]}-${m[2]}`.toUpperCase();
      const r = await call('chain.pools', { pair });
      const p = problemOf(r);
      if (p) return `I can't find that pool: ${p.detail}`;
      const pool = r.pools[0];
      const reserves = Object.values(pool.reserves).join(' and ');
      return `${pool.pair} holds ${reserves}, about ${pool.depth_usd.toLocaleString('en-US')} USD deep, at ${pool.price} (block ${pool.as_of_block}).`;
    },
  },
  {
    test: /\b(?:price of|how much is|what(?:'s| is) the price of|what(?:'s| is)) (\w+)(?: worth| trading at)?\??$|\b(\w+) price\??$/i,
    async answer(m, call) {
      const sym = ((m[1] ?? m[2]) as string).toUpperCase().slice(0, 40);
      const r = await call('chain.tokens');
      const p = problemOf(r);
      if (p) return `I can't look up prices: ${p.detail}`;
      const t = r.tokens?.find((x: { symbol: string }) => x.symbol.toUpperCase() === sym || (sym === 'ETH' && x.symbol === 'WETH'));
      if (!t) return `I don't know ${sym}. I know ${r.tokens.map((x: { symbol: string }) => x.symbol).join(', ')}.`;
      return t.price_usd
        ? `${sym} is ${t.price_usd} (block ${r.as_of_block}).`
        : `${sym} has no pool to price it (block ${r.as_of_block}).`;
    },
  },
  {
    test: /\bwhat do i (?:hold|have|own)\b|\bmy (?:balance|holdings|wallet|portfolio|positions)\b|\bhow much do i have\b/i,
    async answer(_m, call) {
      const r = await call('wallet.read');
      const p = problemOf(r);
      if (p) return `I can't read the wallet: ${p.detail}`;
      return `You hold ${holdings(r)}. Spend policy: ${r.policy.spend}, ${r.policy.left_today} left today.`;
    },
  },
  {
    test: /\b(?:pools|what can i trade|markets?)\b/i,
    async answer(_m, call) {
      const r = await call('chain.pools');
      const p = problemOf(r);
      if (p) return `I can't list the pools: ${p.detail}`;
      return `Pools at block ${r.as_of_block}: ${r.pools.map((p: { pair: string; depth_usd: number }) => `${p.pair} (${p.depth_usd.toLocaleString('en-US')} USD deep)`).join(', ')}.`;
    },
  },
  {
    test: /^(?:hi|hello|hey|gm|good (?:morning|afternoon|evening))\b/i,
    answer: (_m, _t, ctx) => `Hi! I'm ${ctx.presenceName}. Ask me about prices, pools, your wallet, or tell me what to do.`,
  },
  { test: /\b(?:thanks|thank you|cheers)\b/i, answer: () => 'Any time.' },
  {
    test: /\b(?:who are you|what can you do|help)\b/i,
    answer: (_m, _t, ctx) =>
      `I'm ${ctx.presenceName}, your presence. I can tell you prices and pool depth ("${EXAMPLES.depth}"), what you hold, whether a token is safe ("${EXAMPLES.safety}"), act within your spend policy ("${EXAMPLES.swap}"), remember things, and watch prices for you ("${EXAMPLES.watch}").`,
  },
];

/** Splits a reply into a few word groups so streaming clients see it arrive in pieces. */
export function chunkReply(reply: string, wordsPerChunk = 4): string[] {
  const words = reply.split(/(?<=\s)/);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerChunk) out.push(words.slice(i, i + wordsPerChunk).join(''));
  return out;
}

export function createLocalPlanner(): Planner {
  return {
    name: 'local',
    async run(ctx: PlannerContext, io: PlannerIO) {
      const offered = new Map(offeredTools(io.tools, ctx).map((t) => [t.name, t]));
      const call: Call = async (name, args = {}) => {
        const t = offered.get(name);
        if (!t) throw new Say(toolRefusal(name, ctx)?.detail ?? 'That is not something I can do here.', true);
        const parsed = t.args.safeParse(args);
        if (!parsed.success) throw new Say(argsProblem(parsed.error));
        return t.run(parsed.data);
      };
      const text = ctx.text.trim();
      let reply = `I'm not sure what you mean. Try "${EXAMPLES.depth}", "${EXAMPLES.holdings}", "${EXAMPLES.safety}", "${EXAMPLES.swap}" or "${EXAMPLES.watch}".`;
      for (const rule of rules) {
        const m = rule.test.exec(text);
        if (m) {
          try {
            reply = await rule.answer(m, call, ctx);
          } catch (e) {
            if (!(e instanceof Say)) throw e;
            if (e.refused) io.refused();
            reply = e.message;
          }
          break;
        }
      }
      for (const piece of chunkReply(reply)) io.token(piece);
      return reply;
    },
  };
}
