// The `local` planner: deterministic, no network. It reads a message the way people write
// (understanding/: numbers in words, dollar amounts, shares of a balance, token names, filler,
// questions about balances, prices, safety and pools, standing intents) and answers from real
// chain views through the same tools a model would use (local-answers.ts), streaming its reply
// in several pieces; memory and small talk are its own rules here. Whatever would need a guess
// with money is asked back, never acted on. It uses only the tools the turn is offered
// (tool-scopes.ts): asked for something its key's scopes do not allow, it says which scope is
// missing and calls nothing. Whatever is typed gets a reply in words: arguments a tool would
// refuse and problems with what was asked are answered, never thrown; what it does not
// understand is answered with the forms closest to what was typed.

import { MemoryKey } from '@presence/protocol';
import type { z } from 'zod';
import { PresenceError } from '../errors/presence-error';
import { parseIntent } from '../intents/intent-parser';
import { EXAMPLES } from '../replies/replies';
import { STANDING_OPENING } from '../standing/standing-parser';
import { notUnderstood } from '../understanding/closest-forms';
import { answerReading, readWithList, watch } from './local-answers';
import { type Call, type LocalTurn, problemOf, Say } from './local-turn';
import type { Planner, PlannerContext, PlannerIO } from './planner-port';
import { offeredTools, toolRefusal } from './tool-scopes';

type Rule = { test: RegExp; answer: (m: RegExpExecArray, t: LocalTurn) => Promise<string> | string };

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

/** What "forget …" names: a key as written, else a pair or a token mentioned, else a topic. A token is both its own key and the preference "remember …" kept under it ("forget DAI" forgets "I like DAI" too). */
function forgetKeys(what: string, touched: string[]): string[] {
  const w = what.trim();
  if (MemoryKey.safeParse(w).success) return [w];
  const pair = touched.find((k) => k.startsWith('pair:'));
  if (pair) return [pair];
  const token = touched.find((k) => k.startsWith('token:'));
  if (token) return [`pref:${token.slice(6)}`, token];
  const name = slug(w);
  return name ? [`topic:${name}`] : [];
}

/**
 * "remember" asked the ways chat users ask it ("pls remember …", "can u remember …?", "hey,
 * remember that …"): a lead-in and politeness around the note are not part of it.
 */
const REMEMBER =
  /^(?:(?:hey|hi|ok|okay|so|also|oh|and|btw),? )?(?:(?:please|pls|plz|plse) )?(?:(?:can|could|would|will) (?:you|u|ya) (?:please |pls |plz )?)?(?:(?:please|pls|plz) )?remember(?: that)? (.+?)(?:,? (?:please|pls|plz|thx|thanks|ty))?[?!.]*$/i;

/** Memory: read before anything else, so "remember that I prefer DAI" is a note, not a question. */
const memoryRules: Rule[] = [
  {
    test: REMEMBER,
    async answer(m, { call, ctx }) {
      const note = (m[1] as string).replace(/[.!]+$/, '').trim();
      const key = keyFor(note, ctx.touched);
      if (!key || /^that$/i.test(note)) return 'What should I remember? Say it as "remember that I prefer DAI".';
      const r = await call('memory.remember', { key, note });
      const p = problemOf(r);
      return p ? `I could not remember that: ${p.detail}` : `Noted — I'll remember that ${note} (kept under ${key}).`;
    },
  },
  {
    // not "forget it", nor "forget the swap, sell 1 weth for usdc": those take back a request, and forget no memory
    test: /^(?:please )?forget(?: about)? (?!(?:it|that|this|everything)\b)((?:(?!\b(?:swap|sell|buy|send|wrap|unwrap|trade|convert)\b)[^,;])+?)[.!]*$/i,
    async answer(m, { call, ctx }) {
      const keys = forgetKeys(m[1] as string, ctx.touched);
      if (keys.length === 0) return 'What should I forget? Name it as "forget pair:WETH-USDC" or "forget DAI".';
      const forgotten: string[] = [];
      for (const key of keys) if (!problemOf(await call('memory.forget', { key }))) forgotten.push(key);
      return forgotten.length ? `Forgotten: ${forgotten.join(', ')}.` : `I had nothing stored under ${keys.join(' or ')}.`;
    },
  },
  {
    // wiping the whole memory is not something a sentence does: one thing at a time
    test: /^(?:please )?(?:forget (?:everything|it all|all of it|all that)|(?:clear|wipe|erase|reset|delete) (?:your |my |the |all )?(?:memory|memories))[.!]*$/i,
    answer: () => 'I forget one thing at a time, so nothing goes by accident: say "forget DAI" or "forget pair:WETH-USDC".',
  },
  {
    test: /what do you (?:remember|know about me)|^(?:show )?(?:your )?memory\??$/i,
    async answer(_m, { call }) {
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
];

/** Small talk, and what opens like a request it could not read: after the readings. */
const talkRules: Rule[] = [
  {
    test: /^(?:hi|hello|hey|gm|good (?:morning|afternoon|evening))\b/i,
    answer: (_m, { ctx }) => `Hi! I'm ${ctx.presenceName}. Ask me about prices, pools, your wallet, or tell me what to do.`,
  },
  { test: /\b(?:thanks|thank you|cheers)\b/i, answer: () => 'Any time.' },
  {
    // a held action is approved only where a typed message cannot reach (a button, the CLI, a passkey page)
    test: /^(?:please )?(?:approve|confirm|deny|reject|decline)(?: (?:it|that|this|the (?:swap|trade|action|hold|held action|transaction)|them|all))?[.!]*$/i,
    answer: () =>
      'I don\'t take approvals from a message, so no one can approve by typing one. Approve or deny a held action with the buttons shown with it (in the CLI, "presence confirm <id> --approve" or "--deny").',
  },
  {
    // Opens like a standing intent but did not read as one: the standing parser's own words for why.
    test: STANDING_OPENING,
    answer: (m, t) => watch(m.input.trim().replace(/\s+/g, ' '), t),
  },
  {
    // An action it could not read: the pipeline's own words for why (it reads none of them).
    test: /^(?:please |could you |can you )?(?:swap|exchange|trade|convert|buy|sell|wrap|unwrap|send|transfer|pay)\b/i,
    answer(m) {
      try {
        parseIntent(m.input);
      } catch (e) {
        if (e instanceof PresenceError && e.status < 500) return e.detail;
        throw e;
      }
      return notUnderstood(m.input);
    },
  },
  {
    // the presence's name is the account's setting, not something a message changes
    test: /^(?:please |can i |could i )?(?:call (?:yourself|you)|rename (?:yourself|you)(?: to)?|(?:change|set) your name(?: to)?|your name is now|be called|from now on you(?:'re| are)) \S/i,
    answer: (_m, { ctx }) =>
      `My name, ${ctx.presenceName}, is your account's setting, and a message does not change it: a key with the admin scope sets it with PATCH /v1/presence/me ({"name": "…"}).`,
  },
  {
    // what was paid is not kept, so a gain cannot be worked out: said, with what is known
    test: /\b(?:pnl|p&l|p ?and ?l|profit(?:s| and loss)?|losses|gains|(?:am i|are we) (?:up|down|in profit|in the green|in the red)|roi|return on)\b/i,
    answer: () =>
      'I don\'t track profit and loss: I know what you hold now and what it is worth ("what do I hold"), not what you paid for it.',
  },
  {
    test: /\b(?:who are you|what(?:'s| is) your name|whats your name|who am i (?:talking|speaking|chatting) (?:to|with)|what (?:do|should) i call you|what are you called|what can you do|help)\b/i,
    answer: (_m, { ctx }) =>
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
      const turn: LocalTurn = { call, ctx, offered: (name) => offered.has(name) };
      const byRules = async (rules: Rule[]) => {
        for (const rule of rules) {
          const m = rule.test.exec(text);
          if (m) return rule.answer(m, turn);
        }
        return null;
      };
      let reply: string;
      try {
        reply =
          (await byRules(memoryRules)) ??
          (await (async () => {
            const r = await readWithList(text, turn);
            return r ? answerReading(r, turn) : null;
          })()) ??
          (await byRules(talkRules)) ??
          notUnderstood(text);
      } catch (e) {
        if (!(e instanceof Say)) throw e;
        if (e.refused) io.refused();
        reply = e.message;
      }
      for (const piece of chunkReply(reply)) io.token(piece);
      return reply;
    },
  };
}
