// For tests: one turn of the local planner at its port, with the turn's own tool declarations
// (their real argument schemas) and results supplied per row (local-planner.test.ts's tables).
import { scopes as allScopes, type Scope } from '@presence/protocol';
import { createLocalPlanner } from '../src/conversation/local-planner';
import type { PlannerContext, ToolDef } from '../src/conversation/planner-port';
import { PresenceError, type ProblemExtras } from '../src/errors/presence-error';
import { declaredTools } from './tools-fixture';

export const BLOCK = 7;
export const POOL = {
  pair: 'WETH-USDC',
  reserves: { WETH: '10 WETH', USDC: '25000 USDC' },
  depth_usd: 50_000.37,
  price: '2500.00 USD',
  as_of_block: BLOCK,
};
export const DONE = {
  status: 'done',
  intent_id: 'in_1',
  tx: `0x${'ab'.repeat(32)}`,
  block: 12,
  summary: 'swap 5 USDC for ≥0.0019 WETH',
  amount: '5 USDC',
} as const;
export const HELD = {
  status: 'needs_confirm',
  intent_id: 'in_2',
  confirm_id: 'cf_1',
  summary: 'swap 20 USDC for ≥0.0079 WETH',
  amount: '20 USDC',
  expires_at: '2026-03-01T00:10:00.000Z',
} as const;
export const problem = (type: 'not_found' | 'policy_block' | 'invalid_request', detail: string, extra?: ProblemExtras) => ({
  error: new PresenceError(type, detail, extra ? { extra } : undefined).toProblem(),
});

/** What every tool answers unless a row says otherwise. */
export const RESULTS: Record<string, unknown> = {
  'chain.tokens': {
    as_of_block: BLOCK,
    tokens: [
      { symbol: 'WETH', decimals: 18, price_usd: '2500.00 USD' },
      { symbol: 'USDC', decimals: 6, price_usd: '1.00 USD' },
      { symbol: 'LONELY', decimals: 18, price_usd: null },
    ],
  },
  'chain.pools': { as_of_block: BLOCK, pools: [POOL] },
  'chain.safety': { token: 'SCAM', verdict: 'unsafe', as_of_block: BLOCK, reasons: ['sell tax 50.00%', 'owner can mint'] },
  'wallet.read': {
    balances: [
      { symbol: 'USDC', amount: '100 USDC', value_usd: '100.00 USD' },
      { symbol: 'WETH', amount: '0 WETH', value_usd: '0.00 USD' },
      { symbol: 'SCAM', amount: '5 SCAM', value_usd: null },
    ],
    total_usd: '100.00 USD',
    as_of_block: BLOCK,
    ...{ address: `0x${'ab'.repeat(20)}`, chain: { id: 31337, name: 'devnet' }, pending_confirmations: 2 },
    policy: {
      spend: 'guarded',
      per_tx_cap: '50 USD',
      confirm_over: '10 USD',
      daily_cap: '200 USD',
      spent_today: '150.00 USD',
      left_today: '50.00 USD',
    },
  },
  'wallet.actions': {
    actions: [
      {
        intent_id: 'in_3',
        action: 'wrap',
        summary: 'wrap 0.01 ETH',
        amount: '0.01 ETH',
        value_usd: '25.00 USD',
        source: 'message',
        status: 'held',
        created_at: '2026-03-01T00:05:00.000Z',
        tx: null,
        block: null,
        reason: null,
      },
      {
        intent_id: 'in_1',
        action: 'swap',
        summary: 'swap 5 USDC for at least 0.0019 WETH (quoted 0.002 WETH)',
        amount: '5 USDC',
        value_usd: '5.00 USD',
        source: 'api',
        status: 'executed',
        created_at: '2026-03-01T00:00:00.000Z',
        tx: `0x${'ab'.repeat(32)}`,
        block: 12,
        reason: null,
      },
    ],
  },
  'memory.list': {
    pinned: [
      { key: 'pref:DAI', note: 'I prefer DAI' },
      { key: 'pair:WETH-USDC', note: '' },
    ],
    fading: [{ key: 'token:WETH', days_left: 29 }],
  },
  'memory.remember': { key: 'pref:DAI', pinned: true },
  'memory.forget': { key: 'pair:WETH-USDC', forgotten: true },
  'standing.list': [{ id: 'st_1', text: 'tell me when WETH is below 2500 USD', trigger: { kind: 'price', token: 'WETH' } }],
  'standing.create': { id: 'st_2' },
  'standing.cancel': { id: 'st_1', state: 'cancelled' },
  'intent.submit': DONE,
};

export type Row = {
  text: string;
  /** The key's scopes (default: all) and whether the message allows acting (default: yes). */
  scopes?: readonly Scope[];
  allowAct?: boolean;
  touched?: string[];
  /** A tool's result, or a function of its arguments giving it. */
  results?: Record<string, unknown>;
  reply: string | RegExp;
  calls?: string[];
  refused?: boolean;
};

export async function turn(row: Row) {
  const scopes = row.scopes ?? allScopes;
  const allowAct = row.allowAct ?? true;
  const calls: string[] = [];
  const tools: ToolDef[] = declaredTools(scopes, allowAct).map((t) => ({
    ...t,
    run: async (args: Record<string, unknown>) => {
      calls.push(`${t.name} ${JSON.stringify(args)}`);
      const results = { ...RESULTS, ...row.results };
      const result = results[t.name];
      // a row may answer by the call's arguments (a pool asked for by pair, then the list of all)
      return typeof result === 'function' ? result(args) : result;
    },
  }));
  const ctx: PlannerContext = {
    presenceName: 'Ada',
    text: row.text,
    history: [],
    pinned: [],
    touched: row.touched ?? [],
    scopes,
    allowAct,
    preferences: {},
  };
  let streamed = '';
  let refused = false;
  const reply = await createLocalPlanner().run(ctx, {
    tools,
    token: (t) => {
      streamed += t;
    },
    refused: () => {
      refused = true;
    },
  });
  return { reply, streamed, calls, refused };
}
