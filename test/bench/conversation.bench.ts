// Conversation benchmarks (issue 5): local-planner turn latency (JSON, and time to first
// token when streamed), 100 accounts talking at once, our overhead around a model call (a
// `provider:model` route against the scripted OpenAI-compatible server on loopback, minus
// the time that server spent, measured on its side), and the cost of evaluating 10,000
// standing intents per block (one market snapshot per block, not one read per intent).
import { call, removeDir, startTestServer } from '../src/harness';
import { createMarketMover } from '../src/market-mover';
import { type StepOrFn, startScriptedModel } from '../src/scripted-model';
import { fmt, percentile, type Row } from './stats';

async function timeTurns(url: string, key: string, n: number) {
  const json: number[] = [];
  const ttft: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await call(url, 'POST', '/v1/messages', { key, body: { text: 'how deep is WETH-USDC' } });
    json.push(performance.now() - t0);
    const t1 = performance.now();
    const res = await fetch(`${url}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'what is WETH worth', stream: true }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value);
      if (seen.includes('event: token') && ttft.length === i) ttft.push(performance.now() - t1);
    }
  }
  return { json, ttft };
}

const p50p99 = (xs: number[]) => `${fmt(percentile(xs, 50))} / ${fmt(percentile(xs, 99))}`;

/**
 * Turns through a model route. Each turn's overhead is its latency as the client sees it
 * minus the time the model server spent answering its requests (timed on the server's side,
 * from a request's arrival to its answer handed over): what Presence adds around the model
 * — auth, context, the AI SDK, tools' plumbing, storing the turn, HTTP both ways.
 */
async function modelRouteBenchmarks(rows: Row[]) {
  const model = await startScriptedModel();
  const s = await startTestServer({
    chain: true,
    env: { PRESENCE_LLM_BASE_URL: model.baseUrl, PRESENCE_LLM_API_KEY: 'sk-bench', PRESENCE_RATE_LIMIT: '100000000/1s' },
  });
  try {
    await call(s.url, 'PATCH', '/v1/presence/me', { key: s.live, body: { route: { model: 'openai:gpt-bench' } } });
    const turns = async (n: number, steps: StepOrFn[], text: string, stream: boolean) => {
      model.repeat(...steps);
      const overhead: number[] = [];
      const modelMs: number[] = [];
      for (let i = 0; i < n; i++) {
        const seen = model.requests.length;
        const t0 = performance.now();
        if (stream) {
          const res = await fetch(`${s.url}/v1/messages`, {
            method: 'POST',
            headers: { authorization: `Bearer ${s.live}`, 'content-type': 'application/json' },
            body: JSON.stringify({ text, stream: true }),
          });
          const body = await res.text();
          if (!body.includes('event: done')) throw new Error(`streamed turn failed: ${body.slice(0, 300)}`);
        } else {
          const r = await call(s.url, 'POST', '/v1/messages', { key: s.live, body: { text } });
          if (r.status !== 200) throw new Error(`turn failed: ${r.text.slice(0, 300)}`);
        }
        const total = performance.now() - t0;
        const spent = model.requests.slice(seen).reduce((sum, q) => sum + q.ms, 0);
        overhead.push(total - spent);
        modelMs.push(spent);
      }
      return { overhead, modelMs };
    };
    const answer: StepOrFn[] = [{ text: ['The ', 'answer ', 'is ', 'short.'] }];
    const withTool: StepOrFn[] = [
      { toolCalls: [{ name: 'chain_tokens', args: {} }] },
      { text: ['WETH is ', 'priced ', 'from the pools.'] },
    ];
    await turns(20, answer, 'hello there', false); // warm up
    const plain = await turns(200, answer, 'hello there', false);
    rows.push({ benchmark: 'model route turn (JSON): our overhead p50 / p99 ms', figure: p50p99(plain.overhead), target: '< 10' });
    const streamed = await turns(200, answer, 'hello there', true);
    rows.push({ benchmark: 'model route turn (streamed): our overhead p50 / p99 ms', figure: p50p99(streamed.overhead), target: '< 10' });
    await turns(10, withTool, 'what is WETH worth', false);
    const tooled = await turns(100, withTool, 'what is WETH worth', false);
    rows.push({
      benchmark: 'model route, 2 model calls + chain.tokens: our overhead p50 / p99 ms',
      figure: p50p99(tooled.overhead),
      target: '',
    });
    rows.push({
      benchmark: 'model route: scripted model server time per turn p50 ms (subtracted)',
      figure: `${fmt(percentile(plain.modelMs, 50), 2)} (1 call) / ${fmt(percentile(tooled.modelMs, 50), 2)} (2 calls)`,
      target: '',
    });
  } finally {
    await s.close();
    removeDir(s.dataDir);
    await model.close();
  }
}

export async function conversationBenchmarks(rows: Row[]) {
  await modelRouteBenchmarks(rows);
  const s = await startTestServer({ chain: true, env: { PRESENCE_RATE_LIMIT: '100000000/1s' } });
  try {
    await timeTurns(s.url, s.live, 10); // warm up
    const { json, ttft } = await timeTurns(s.url, s.live, 100);
    rows.push({
      benchmark: 'local planner turn (JSON) p50 / p99 ms',
      figure: `${fmt(percentile(json, 50))} / ${fmt(percentile(json, 99))}`,
      target: '',
    });
    rows.push({
      benchmark: 'local planner time to first token p50 / p99 ms',
      figure: `${fmt(percentile(ttft, 50))} / ${fmt(percentile(ttft, 99))}`,
      target: '< 50 p50',
    });

    const keys: string[] = [];
    for (let i = 0; i < 100; i++) keys.push((await s.core.accounts.create(`bench${i}`)).admin.secret);
    const t0 = performance.now();
    const rounds = 5;
    await Promise.all(
      keys.map(async (k) => {
        for (let r = 0; r < rounds; r++) await call(s.url, 'POST', '/v1/messages', { key: k, body: { text: 'how deep is WETH-USDC' } });
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    rows.push({ benchmark: '100 accounts talking at once: turns/s', figure: fmt((keys.length * rounds) / secs, 0), target: '' });

    // 10,000 standing intents across the 100 accounts.
    const accounts = (await s.core.store.listAccounts()).map((a) => a.id).filter((id) => id.startsWith('bench'));
    const spec = (i: number) => ({
      trigger: {
        kind: 'price' as const,
        token: 'WETH',
        op: 'below' as const,
        threshold_usd: String(BigInt(1000 + (i % 500)) * 10n ** 18n),
      },
      action: { kind: 'notify' as const },
    });
    let made = 0;
    for (const a of accounts)
      for (let j = 0; j < 100; j++)
        await s.core.standing.create({ accountId: a, kind: 'live', keyId: null, scopes: ['wallet:read'] }, 'bench', spec(made++), {
          allowAct: false,
        });
    const chain = s.core.wallet!.chain as { pair: (...a: unknown[]) => Promise<unknown> };
    const original = chain.pair.bind(chain);
    let pairReads = 0;
    chain.pair = (...a: unknown[]) => {
      pairReads++;
      return original(...a);
    };
    await s.core.standing.tick();
    const mover = createMarketMover(s.core.wallet!.chain, s.core.wallet!.tokenList);
    const perBlock: number[] = [];
    const reads: number[] = [];
    for (let b = 0; b < 5; b++) {
      await mover.sellEth(10n ** 16n);
      pairReads = 0;
      const t = performance.now();
      await s.core.standing.tick();
      perBlock.push(performance.now() - t);
      reads.push(pairReads);
    }
    const quiet = performance.now();
    await s.core.standing.tick();
    const unchanged = performance.now() - quiet;
    chain.pair = original;
    const pools = s.core.wallet!.tokenList.tokens.length;
    rows.push({
      benchmark: `standing: ${made.toLocaleString('en')} intents, one new block, p50 ms`,
      figure: fmt(percentile(perBlock, 50)),
      target: '',
    });
    rows.push({
      benchmark: 'standing: pair reads per block (all intents)',
      figure: `${percentile(reads, 50)} (${pools} tokens → ${(pools * (pools - 1)) / 2} combos)`,
      target: 'per pair, not per intent',
    });
    rows.push({ benchmark: 'standing: tick with no new block, ms', figure: fmt(unchanged), target: '' });
  } finally {
    await s.close();
    removeDir(s.dataDir);
  }
}
