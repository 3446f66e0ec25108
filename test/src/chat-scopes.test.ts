// Scopes only narrow, in conversation too: every presence tool × (a key holding just what it
// needs, a key holding every other scope, a talk-only key) × both planners — the local one,
// and a `provider:model` route against the scripted OpenAI-compatible server, whose model
// calls the tool whether or not it was offered and echoes what it got back. An allowed call
// runs (its data reaches the reply, its effect is kept); a refused one does nothing: the
// model is not even offered the tool, nothing is traced in `used`, memory (touches included),
// events, standing intents and the wallet are unchanged, no data reaches the reply, and the
// local planner says which scope is missing. A turn touches the keys it mentions only when
// its key holds memory:write and nothing in it was refused.
import { readableUsd } from '@presence/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, call, removeDir, startTestServer, type TestServer } from './harness';
import { type ChatRequest, startScriptedModel, toolResult } from './scripted-model';

const ALL = ['talk', 'memory:read', 'memory:write', 'wallet:read', 'wallet:act', 'admin'] as const;
type Scope = (typeof ALL)[number];

let s: TestServer;
let model: Awaited<ReturnType<typeof startScriptedModel>>;
const admin = (method: string, url: string, body?: unknown) => call(s.url, method, url, { key: s.live, body });
const walletNonce = async () => s.core.wallet!.chain.nonceOf(await s.core.wallet!.wallets.address('default'), 'latest');
const memoryRaw = async () => JSON.stringify(await s.core.store.readMemory('default'));
const latestEvent = async () => (await s.core.events.bounds({ accountId: 'default', kind: 'live' })).latest;
const standingTexts = async () => ((await admin('GET', '/v1/standing')).json.standing as { id: string; text: string }[]).map((x) => x.text);
const cancelStanding = async (text: string) => {
  for (const x of (await admin('GET', '/v1/standing')).json.standing as { id: string; text: string }[])
    if (x.text === text) expect((await admin('DELETE', `/v1/standing/${x.id}`)).status).toBe(200);
};
const memoryKeys = async () => {
  const m = (await admin('GET', '/v1/memory')).json;
  return [...m.pinned, ...m.fading] as { key: string; note: string; tier: string }[];
};

/** A USD figure as the local planner writes it (grouped), or as the model echoes the tool's result. */
const saysUsd = (reply: string, usd: string) => reply.includes(usd) || reply.includes(readableUsd(usd));

const SECRET_NOTE = 'only-memory-read-may-see-this';

type Case = {
  tool: string;
  /** What the local planner is asked; null where it has no form for the tool. */
  text: string | null;
  /** What the model calls the tool with. */
  args: Record<string, unknown>;
  need: Scope[];
  allowAct?: boolean;
  /** Tokens the text mentions: touched when the turn is allowed and the key holds memory:write. */
  mentions?: string[];
  setup?: () => Promise<void>;
  /** What the local planner's turn uses, when it reads before it calls the tool (default: the tool alone). */
  localUses?: string[];
  /** Whether the tool ran: its data is in the reply, or its effect is kept. */
  ran(reply: string, before: { nonce: number }): Promise<boolean>;
  undo?: () => Promise<void>;
};

const cases: Case[] = [
  {
    tool: 'chain.tokens',
    text: 'what is WETH worth',
    args: {},
    need: ['wallet:read'],
    mentions: ['token:WETH'],
    async ran(reply) {
      const weth = (await admin('GET', '/v1/chain/tokens')).json.tokens.find((t: { symbol: string }) => t.symbol === 'WETH');
      return saysUsd(reply, weth.price_usd);
    },
  },
  {
    tool: 'chain.pools',
    text: 'how deep is WETH-USDC',
    args: { pair: 'WETH-USDC' },
    need: ['wallet:read'],
    mentions: ['pair:WETH-USDC', 'token:WETH'],
    async ran(reply) {
      return reply.includes((await admin('GET', '/v1/chain/pools?pair=WETH-USDC')).json.pools[0].reserves.WETH);
    },
  },
  {
    tool: 'chain.safety',
    text: 'is SCAM safe',
    args: { token: 'SCAM' },
    need: ['wallet:read'],
    mentions: ['token:SCAM'],
    ran: async (reply) => /NOT safe|"verdict":"unsafe"/.test(reply),
  },
  { tool: 'chain.positions', text: null, args: {}, need: ['wallet:read'], ran: async (reply) => reply.includes('"holdings"') },
  {
    tool: 'wallet.read',
    text: 'what do I hold',
    args: {},
    need: ['wallet:read'],
    async ran(reply) {
      return saysUsd(reply, (await admin('GET', '/v1/wallet')).json.total_usd);
    },
  },
  { tool: 'memory.list', text: 'what do you remember', args: {}, need: ['memory:read'], ran: async (reply) => reply.includes(SECRET_NOTE) },
  {
    tool: 'memory.remember',
    text: 'remember that I prefer DAI',
    args: { key: 'pref:DAI', note: 'I prefer DAI' },
    need: ['memory:write'],
    mentions: ['token:DAI'],
    ran: async () => (await memoryKeys()).some((e) => e.key === 'pref:DAI' && e.tier === 'pinned'),
    undo: async () => expect((await admin('DELETE', '/v1/memory/pref:DAI')).status).toBe(200),
  },
  {
    tool: 'memory.forget',
    text: 'forget pair:WETH-USDC',
    args: { key: 'pair:WETH-USDC' },
    need: ['memory:write'],
    mentions: ['token:WETH'],
    setup: async () => expect((await admin('POST', '/v1/memory/pin', { key: 'pair:WETH-USDC', note: 'watch it' })).status).toBe(200),
    ran: async () => !(await memoryKeys()).some((e) => e.key === 'pair:WETH-USDC'),
  },
  { tool: 'standing.list', text: 'list my alerts', args: {}, need: ['talk'], ran: async (reply) => reply.length > 0 },
  ...(
    [
      ['tell me when WETH is below 100 USD', ['wallet:read'], false],
      ['every day at 09:00 tell me my balance', ['wallet:read'], false],
      ['if WETH drops below 100 buy $1 of WETH', ['wallet:act'], true],
    ] as const
  ).map(
    ([text, need, allowAct]): Case => ({
      tool: 'standing.create',
      text,
      args: { text },
      // It looks for the same standing intent first, so as not to make it twice.
      localUses: ['standing.list', 'standing.create'],
      need: [...need],
      allowAct,
      ran: async () => (await standingTexts()).includes(text),
      undo: () => cancelStanding(text),
    }),
  ),
  {
    tool: 'intent.submit',
    text: 'swap 1 USDC for WETH',
    args: { do: 'swap 1 USDC for WETH' },
    need: ['wallet:act'],
    allowAct: true,
    mentions: ['token:USDC'],
    ran: async (_reply, before) => (await walletNonce()) > before.nonce,
  },
];

/** With just what it needs; with every other scope; talk only (for a tool that needs only talk, the first is that). */
const scopeSets = (c: Case): { label: string; scopes: Scope[] }[] => {
  const sets = [{ label: 'just its scopes', scopes: [...new Set<Scope>(['talk', ...c.need])] }];
  if (!c.need.includes('talk')) {
    sets.push({ label: 'every other scope', scopes: ALL.filter((x) => !c.need.includes(x)) });
    sets.push({ label: 'talk only', scopes: ['talk'] });
  }
  return sets;
};

const keys = new Map<string, string>();
async function keyFor(scopes: Scope[]): Promise<string> {
  const id = [...scopes].sort().join(',');
  let secret = keys.get(id);
  if (!secret) {
    const r = await admin('POST', '/v1/keys', { name: `scopes:${id}`.slice(0, 60), scopes });
    expect(r.status).toBe(201);
    secret = r.json.secret as string;
    keys.set(id, secret);
  }
  return secret;
}

const wire = (tool: string) => tool.replace('.', '_');

beforeAll(async () => {
  model = await startScriptedModel();
  s = await startTestServer({
    chain: true,
    env: { PRESENCE_LLM_BASE_URL: model.baseUrl, PRESENCE_LLM_API_KEY: 'sk-test', PRESENCE_RATE_LIMIT: '100000/60s' },
  });
  expect((await admin('POST', '/v1/memory/pin', { key: 'topic:secret', note: SECRET_NOTE })).status).toBe(200);
});
afterAll(async () => {
  await s?.close();
  if (s) removeDir(s.dataDir);
  await model?.close();
});

describe.each(['local', 'openai:gpt-test'])('planner %s', (route) => {
  beforeAll(async () => {
    expect((await admin('PATCH', '/v1/presence/me', { route: { model: route } })).status).toBe(200);
  });
  const ai = route !== 'local';
  const rows = cases
    .filter((c) => ai || c.text !== null)
    .flatMap((c) => scopeSets(c).map((set) => ({ name: `${c.tool}${c.text ? ` ("${c.text}")` : ''} with ${set.label}`, c, set })));

  it.each(rows)('$name', async ({ c, set }) => {
    const key = await keyFor(set.scopes);
    const missing = c.need.filter((x) => !set.scopes.includes(x));
    const allowed = missing.length === 0;
    const allowAct = Boolean(c.allowAct) && set.scopes.includes('wallet:act');
    await c.setup?.();
    if (ai) {
      model.script({ toolCalls: [{ name: wire(c.tool), args: c.args }] }, (req) => ({
        text: [JSON.stringify(toolResult(req, wire(c.tool)) ?? null)],
      }));
    }
    const before = { memory: await memoryRaw(), event: await latestEvent(), standing: await standingTexts(), nonce: await walletNonce() };

    const text = c.text ?? `show me my ${c.tool}`;
    const r: Answer = await call(s.url, 'POST', '/v1/messages', { key, body: { text, allow_act: allowAct } });
    expect(r.status, r.text).toBe(200);
    const reply = r.json.reply as string;
    expect(await c.ran(reply, before), reply).toBe(allowed);

    if (allowed) {
      expect(r.json.used.map((u: { tool: string }) => u.tool)).toEqual((!ai && c.localUses) || [c.tool]);
    } else {
      expect(r.json.used).toEqual([]);
      expect(r.json.acted).toBe(false);
      expect(await memoryRaw()).toBe(before.memory);
      expect(await latestEvent()).toBe(before.event);
      expect(await standingTexts()).toEqual(before.standing);
      expect(await walletNonce()).toBe(before.nonce);
      const words = `That needs the ${missing.join(' and ')} scope${missing.length > 1 ? 's' : ''}, which this key does not have.`;
      if (!ai) expect(reply).toBe(words);
      else {
        const first = model.requests[0]?.body as ChatRequest;
        const offered = (first.tools ?? []).map((t) => t.function.name);
        for (const m of missing) expect(first.messages[0]?.content).toContain(`This key does not hold the ${m} scope`);
        if (offered.includes(wire(c.tool))) {
          // Offered for another use (a standing intent of a kind this key may create): refused at the gate.
          expect(JSON.parse(reply).error).toMatchObject({ type: 'scope', status: 403, detail: words, missing });
        } else expect(reply).toMatch(/unavailable tool|no such tool/i);
      }
    }

    // Touching is a memory write: only with memory:write, and only when nothing was refused.
    const touches = allowed && set.scopes.includes('memory:write');
    for (const k of c.mentions ?? []) expect(r.json.memory.touched.includes(k), k).toBe(touches);
    if (!set.scopes.includes('memory:write')) expect(await memoryRaw()).toBe(before.memory);
    if (ai) {
      // The model is offered exactly what the key's scopes allow, and never withdraw or policy tools.
      const first = model.requests[0]?.body as ChatRequest;
      const offered = (first.tools ?? []).map((t) => t.function.name);
      expect(offered.includes('memory_list')).toBe(set.scopes.includes('memory:read'));
      expect(offered.includes('memory_remember')).toBe(set.scopes.includes('memory:write'));
      expect(offered.includes('wallet_read')).toBe(set.scopes.includes('wallet:read'));
      expect(offered.includes('intent_submit')).toBe(allowAct);
      expect(offered.filter((n) => /withdraw|policy/.test(n))).toEqual([]);
      // Pinned memory reaches the model only with memory:read.
      expect((first.messages[0]?.content ?? '').includes(SECRET_NOTE)).toBe(set.scopes.includes('memory:read'));
    }
    if (allowed) await c.undo?.();
  });
});
