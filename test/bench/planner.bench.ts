// The `local` planner's own time per message (issue 37): every phrasing of core's corpus run
// through the planner with its real tool declarations answering canned results at once, so
// the figure is reading, deciding and wording — not the chain, the store or HTTP (the
// conversation benchmarks time whole turns). Also the reader alone. Core's sources are loaded
// by path: these are internals no package entry exports.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { scopes } from '@presence/protocol';
import { fmt, percentile, type Row } from './stats';

const coreDir = path.dirname(createRequire(import.meta.url).resolve('@presence/core/package.json'));
const load = (file: string) => import(pathToFileURL(path.join(coreDir, file)).href);

const BLOCK = 7;
/** What each tool answers: enough for every reply to be worded in full. */
const RESULTS: Record<string, unknown> = {
  'chain.tokens': {
    as_of_block: BLOCK,
    tokens: [
      { symbol: 'WETH', decimals: 18, price_usd: '3000.00 USD' },
      { symbol: 'USDC', decimals: 6, price_usd: '1.00 USD' },
      { symbol: 'DAI', decimals: 18, price_usd: '1.00 USD' },
      { symbol: 'SCAM', decimals: 18, price_usd: '0.012 USD' },
    ],
  },
  'chain.pools': {
    as_of_block: BLOCK,
    pools: [
      { pair: 'WETH-USDC', reserves: { WETH: '10 WETH', USDC: '30000 USDC' }, depth_usd: 60_000, price: '3000.00 USD', as_of_block: BLOCK },
    ],
  },
  'chain.safety': { token: 'SCAM', verdict: 'unsafe', as_of_block: BLOCK, reasons: ['sell tax 25.00%'] },
  'wallet.read': {
    balances: [
      { symbol: 'ETH', amount: '9.5 ETH', value_usd: '28500.00 USD' },
      { symbol: 'USDC', amount: '1000 USDC', value_usd: '1000.00 USD' },
      { symbol: 'WETH', amount: '0.5 WETH', value_usd: '1500.00 USD' },
      { symbol: 'DAI', amount: '250 DAI', value_usd: '250.00 USD' },
    ],
    total_usd: '31250.00 USD',
    as_of_block: BLOCK,
    policy: { spend: 'guarded', left_today: '200.00 USD' },
  },
  'memory.list': { pinned: [], fading: [] },
  'memory.remember': { key: 'pref:DAI', pinned: true },
  'memory.forget': { key: 'pref:DAI', forgotten: true },
  'standing.list': [{ id: 'st_1', text: 'tell me when WETH is below 2500 USD', trigger: { kind: 'price', token: 'WETH' } }],
  'standing.create': { id: 'st_2' },
  'standing.cancel': { id: 'st_1', state: 'cancelled' },
  'intent.submit': {
    status: 'done',
    intent_id: 'in_1',
    tx: `0x${'ab'.repeat(32)}`,
    block: 12,
    summary: 'swap 20 USDC for at least 0.006583 WETH (quoted 0.006649781397412741 WETH)',
    amount: '20 USDC',
    value_usd: '20.00 USD',
  },
};

export async function plannerBenchmarks(rows: Row[]) {
  const { createLocalPlanner } = await load('src/conversation/local-planner.ts');
  const { declaredTools } = await load('testing/tools-fixture.ts');
  const { readMessage } = await load('src/understanding/read-message.ts');
  const corpus = await load('src/understanding/phrasings.corpus.ts');
  const blind: Record<string, [string, string][]> = await load('src/understanding/phrasings.blind.ts');
  const texts: string[] = [corpus.ACTIONS, corpus.QUESTIONS, corpus.STANDING, corpus.MUST_ASK, corpus.NOT_ACTIONS, ...Object.values(blind)]
    .flat()
    .map(([t]: [string]) => t);
  const tools = declaredTools(scopes, true).map((t: { name: string }) => ({ ...t, run: async () => RESULTS[t.name] }));
  const planner = createLocalPlanner();
  const ctx = (text: string) => ({
    presenceName: 'Ada',
    text,
    history: [],
    pinned: [],
    touched: [],
    scopes,
    allowAct: true,
    preferences: {},
  });
  const io = { tools, token() {}, refused() {} };

  const perMessage: number[] = [];
  const reading: number[] = [];
  for (let round = 0; round < 23; round++) {
    for (const text of texts) {
      const t0 = performance.now();
      await planner.run(ctx(text), io);
      const t1 = performance.now();
      readMessage(text, { presenceName: 'Ada' });
      const t2 = performance.now();
      // The first three rounds warm the JIT (and compromise's lexicon) up.
      if (round >= 3) {
        perMessage.push(t1 - t0);
        reading.push(t2 - t1);
      }
    }
  }
  rows.push({
    benchmark: `local planner per message, ${texts.length} corpus phrasings × 20, p50 / p99 / max ms`,
    figure: `${fmt(percentile(perMessage, 50), 3)} / ${fmt(percentile(perMessage, 99), 3)} / ${fmt(Math.max(...perMessage), 2)}`,
    target: '< 5 p99',
  });
  rows.push({
    benchmark: 'reading a message alone (understanding/) p50 / p99 ms',
    figure: `${fmt(percentile(reading, 50), 3)} / ${fmt(percentile(reading, 99), 3)}`,
    target: '',
  });
}
