// The `local` planner: deterministic, no network. It recognises the message forms listed in
// DESIGN.md (prices and depth, holdings, safety, actions, memory, standing intents, small
// talk), answers from real chain views through the same tools a model would use, and
// streams its reply in several pieces.
import type { Problem } from '../errors/presence-error';
import { parseIntent } from '../intents/intent-parser';
import { parseStanding } from '../standing/standing-parser';
import type { Planner, PlannerContext, PlannerIO } from './planner-port';

type Tools = Record<string, (args: Record<string, unknown>) => Promise<any>>;
type Rule = { test: RegExp; answer: (m: RegExpExecArray, tools: Tools, ctx: PlannerContext) => Promise<string> | string };

const problemOf = (r: unknown): Problem | null => ((r as { error?: Problem })?.error ? (r as { error: Problem }).error : null);
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40) || 'note';

/** A memory key for "remember …": a mentioned token makes it a preference, else a topic. */
function keyFor(note: string, touched: string[]): string {
  const token = touched.find((k) => k.startsWith('token:'));
  if (token) return `pref:${token.slice(6)}`;
  const pair = touched.find((k) => k.startsWith('pair:'));
  if (pair) return pair;
  return `topic:${slug(note.split(' ').slice(0, 4).join(' '))}`;
}

function forgetKey(what: string, touched: string[]): string {
  const w = what.trim();
  if (/^(token|pair|addr|topic|pref):[A-Za-z0-9._-]{1,64}$/.test(w)) return w;
  return touched.find((k) => k.startsWith('pair:')) ?? touched.find((k) => k.startsWith('token:')) ?? `topic:${slug(w)}`;
}

const rules: Rule[] = [
  {
    test: /^(?:please )?remember(?: that)? (.+)$/i,
    async answer(m, tools, ctx) {
      const note = (m[1] as string).replace(/[.!]+$/, '');
      const key = keyFor(note, ctx.touched);
      const r = await tools['memory.remember']!({ key, note });
      const p = problemOf(r);
      return p ? `I could not remember that: ${p.detail}` : `Noted — I'll remember that ${note} (kept under ${key}).`;
    },
  },
  {
    test: /^(?:please )?forget(?: about)? (.+?)[.!]*$/i,
    async answer(m, tools, ctx) {
      const key = forgetKey(m[1] as string, ctx.touched);
      const r = await tools['memory.forget']!({ key });
      return problemOf(r) ? `I had nothing stored under ${key}.` : `Forgotten: ${key}.`;
    },
  },
  {
    test: /what do you (?:remember|know about me)|^(?:show )?(?:your )?memory\??$/i,
    async answer(_m, tools) {
      const r = await tools['memory.list']!({});
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
    async answer(_m, tools) {
      const r = await tools['standing.list']!({});
      if (!Array.isArray(r) || r.length === 0) return 'You have no standing intents.';
      return `Standing: ${r.map((s: { id: string; text: string }) => `${s.id}: ${s.text}`).join('; ')}.`;
    },
  },
  {
    test: /^(?:(?:tell|notify|alert|ping|warn) me (?:when|if) |every day at |(?:if|when|once) \w+ (?:is|goes|drops|falls|gets|trades|rises|climbs|moves) )/i,
    async answer(m, tools) {
      const text = m.input.trim();
      if (!parseStanding(text))
        return 'I can watch prices ("tell me when WETH is below 2500 USD"), report daily ("every day at 09:00 tell me my balance") or act on a price ("if WETH drops below 2000 buy $50 of WETH").';
      const r = await tools['standing.create']!({ text });
      const p = problemOf(r);
      if (p) return `I can't set that up: ${p.detail}`;
      return `Done — I'll keep watching (${r.id}): "${text}". Cancel it any time with DELETE /v1/standing/${r.id}.`;
    },
  },
  {
    test: /^(?:please |could you |can you )?(?:swap|exchange|trade|convert|buy|sell|wrap|unwrap|send|transfer|pay)\b/i,
    async answer(m, tools, ctx) {
      try {
        parseIntent(m.input);
      } catch (e) {
        return (e as Error).message;
      }
      if (!ctx.allowAct || !tools['intent.submit']) {
        return 'I can do that, but this message did not allow actions. Send it again with allow_act: true (your key needs wallet:act).';
      }
      const r = await tools['intent.submit']({ do: m.input.trim() });
      const p = problemOf(r);
      if (p) return p.type === 'policy_block' ? `Your spend policy stops that: ${p.detail}.` : `I couldn't do that: ${p.detail}`;
      if (r.status === 'done') return `Done: ${r.summary}. Transaction ${r.tx} landed in block ${r.block}.`;
      return `That is above your confirmation threshold, so I have held it: ${r.summary}. Approve or deny ${r.confirm_id} before ${r.expires_at}; if you don't answer, nothing happens.`;
    },
  },
  {
    test: /\bis (\w+) (?:safe|a scam|legit)\b|\bsafety of (\w+)|\bcheck (?:token )?(\w+)\b/i,
    async answer(m, tools) {
      const token = (m[1] ?? m[2] ?? m[3]) as string;
      const r = await tools['chain.safety']!({ token });
      const p = problemOf(r);
      if (p) return `I can't check ${token}: ${p.detail}`;
      const verdict = r.verdict === 'safe' ? 'looks safe' : r.verdict === 'unsafe' ? 'is NOT safe' : 'needs caution';
      return `${r.token} ${verdict} (block ${r.as_of_block}). ${r.reasons.join('; ')}.`;
    },
  },
  {
    test: /\b(?:how deep|depth|liquidity)\b.*?\b([A-Za-z][A-Za-z0-9]*)[-/ ]([A-Za-z][A-Za-z0-9]*)\??$/i,
    async answer(m, tools) {
      const pair = `${m[1]}-${m[2]}`.toUpperCase();
      const r = await tools['chain.pools']!({ pair });
      const p = problemOf(r);
      if (p) return `I can't find that pool: ${p.detail}`;
      const pool = r.pools[0];
      const reserves = Object.values(pool.reserves).join(' and ');
      return `${pool.pair} holds ${reserves}, about ${pool.depth_usd.toLocaleString('en-US')} USD deep, at ${pool.price} (block ${pool.as_of_block}).`;
    },
  },
  {
    test: /\b(?:price of|how much is|what(?:'s| is) the price of|what(?:'s| is)) (\w+)(?: worth| trading at)?\??$|\b(\w+) price\??$/i,
    async answer(m, tools) {
      const sym = ((m[1] ?? m[2]) as string).toUpperCase();
      const r = await tools['chain.tokens']!({});
      const t = r.tokens?.find((x: { symbol: string }) => x.symbol.toUpperCase() === sym || (sym === 'ETH' && x.symbol === 'WETH'));
      if (!t) return `I don't know ${sym}. I know ${r.tokens.map((x: { symbol: string }) => x.symbol).join(', ')}.`;
      return t.price_usd
        ? `${sym} is ${t.price_usd} (block ${r.as_of_block}).`
        : `${sym} has no pool to price it (block ${r.as_of_block}).`;
    },
  },
  {
    test: /\bwhat do i (?:hold|have|own)\b|\bmy (?:balance|holdings|wallet|portfolio|positions)\b|\bhow much do i have\b/i,
    async answer(_m, tools) {
      const r = await tools['wallet.read']!({});
      const p = problemOf(r);
      if (p) return `I can't read the wallet: ${p.detail}`;
      const held = r.balances.filter((b: { amount: string }) => !/^0 /.test(b.amount));
      const lines = held.map((b: { amount: string; value_usd: string | null }) => `${b.amount}${b.value_usd ? ` (${b.value_usd})` : ''}`);
      return `You hold ${lines.join(', ')} — ${r.total_usd} in total at block ${r.as_of_block}. Spend policy: ${r.policy.spend}, ${r.policy.left_today} left today.`;
    },
  },
  {
    test: /\b(?:pools|what can i trade|markets?)\b/i,
    async answer(_m, tools) {
      const r = await tools['chain.pools']!({});
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
      `I'm ${ctx.presenceName}, your presence. I can tell you prices and pool depth ("how deep is WETH-USDC"), what you hold, whether a token is safe ("is SCAM safe"), act within your spend policy ("swap 50 USDC for WETH"), remember things, and watch prices for you ("tell me when WETH is below 2500 USD").`,
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
      const tools: Tools = Object.fromEntries(io.tools.map((t) => [t.name, (a: Record<string, unknown>) => t.run(t.args.parse(a))]));
      const text = ctx.text.trim();
      let reply = `I'm not sure what you mean. Try "how deep is WETH-USDC", "what do I hold", "is SCAM safe", "swap 20 USDC for WETH" or "tell me when WETH is below 2500 USD".`;
      for (const rule of rules) {
        const m = rule.test.exec(text);
        if (m) {
          reply = await rule.answer(m, tools, ctx);
          break;
        }
      }
      for (const piece of chunkReply(reply)) io.token(piece);
      return reply;
    },
  };
}
