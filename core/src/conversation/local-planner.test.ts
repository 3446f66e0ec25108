// The local planner's replies, as tables: each message form with the tool results a turn would
// get, the words it answers and the calls it made; refusals (a scope the key lacks, a message
// without allow_act) answered in words without a call; and arguments a tool would refuse
// answered as what is wrong with them. The tools are the turn's own declarations (their real
// argument schemas) with results supplied at the planner port (testing/local-planner-fixture.ts).

import { describe, expect, it } from 'vitest';
import { BLOCK, DONE, HELD, problem, type Row, turn } from '../../testing/local-planner-fixture';
import { ALLOW_ACT_NEEDED, actionOutcome, EXAMPLES, STANDING_FORMS, scopesMissing } from '../replies/replies';

const answers: [string, Row][] = [
  [
    'pool depth',
    {
      text: 'how deep is WETH-USDC',
      reply: `WETH-USDC holds 10 WETH and 25000 USDC, about 50,000 USD deep, at 2500.00 USD (block ${BLOCK}).`,
      calls: ['chain.pools {"pair":"WETH-USDC"}'],
    },
  ],
  ['a price', { text: "what's WETH worth?", reply: `WETH is 2,500.00 USD (block ${BLOCK}).`, calls: ['chain.tokens {}'] }],
  ['ETH is priced as WETH', { text: 'ETH price', reply: `ETH is 2,500.00 USD (block ${BLOCK}).`, calls: ['chain.tokens {}'] }],
  ['a token without a pool', { text: 'LONELY price', reply: `LONELY has no pool to price it (block ${BLOCK}).` }],
  ['an unknown token', { text: 'how much is FOO?', reply: "I don't know FOO. I know WETH, USDC, LONELY." }],
  [
    'holdings (nothing at 0, a value only where there is one)',
    {
      text: 'what do I hold',
      reply: `You hold 100 USDC (100.00 USD), 5 SCAM — 100.00 USD in total at block ${BLOCK}. Spend policy: guarded, 50.00 USD left today.`,
      calls: ['wallet.read {}'],
    },
  ],
  [
    'safety',
    {
      text: 'is SCAM safe?',
      reply: `SCAM is NOT safe (block ${BLOCK}). Sell tax 50.00%; owner can mint.`,
      calls: ['chain.safety {"token":"SCAM"}'],
    },
  ],
  [
    'safety of a token the chain does not list: what it lists',
    {
      text: 'is uniswap safe',
      results: { 'chain.safety': problem('not_found', 'unknown token UNISWAP') },
      reply: "I don't know UNISWAP on this chain. I know WETH, USDC, LONELY.",
      calls: ['chain.safety {"token":"UNISWAP"}', 'chain.tokens {}'],
    },
  ],
  [
    'a pool there is not: the pools there are',
    {
      text: 'how deep is pepe/usdc',
      results: {
        'chain.pools': (args: { pair?: string }) =>
          args.pair ? problem('not_found', 'unknown token PEPE') : { as_of_block: BLOCK, pools: [{ pair: 'WETH-USDC' }] },
      },
      reply: 'There is no PEPE-USDC pool on this chain. The pools are WETH-USDC.',
      calls: ['chain.pools {"pair":"PEPE-USDC"}', 'chain.pools {}'],
    },
  ],
  ['pools', { text: 'what can I trade', reply: `Pools at block ${BLOCK}: WETH-USDC (50,000 USD deep).`, calls: ['chain.pools {}'] }],
  [
    'remember, named by a mentioned token',
    {
      text: 'remember that I prefer DAI',
      touched: ['token:DAI'],
      reply: "Noted — I'll remember that I prefer DAI (kept under pref:DAI).",
      calls: ['memory.remember {"key":"pref:DAI","note":"I prefer DAI"}'],
    },
  ],
  [
    'remember, named by its first words',
    {
      text: 'Remember that the meeting is on Friday.',
      reply: "Noted — I'll remember that the meeting is on Friday (kept under topic:the-meeting-is-on).",
      calls: ['memory.remember {"key":"topic:the-meeting-is-on","note":"the meeting is on Friday"}'],
    },
  ],
  [
    'remember, asked the way chat users ask',
    {
      text: "can u remember i'm saving for a car?",
      reply: "Noted — I'll remember that i'm saving for a car (kept under topic:i-m-saving-for-a).",
      calls: ['memory.remember {"key":"topic:i-m-saving-for-a","note":"i\'m saving for a car"}'],
    },
  ],
  [
    'remember, after "pls"',
    {
      text: 'pls remember my friend alice likes dai',
      touched: ['token:DAI'],
      reply: "Noted — I'll remember that my friend alice likes dai (kept under pref:DAI).",
      calls: ['memory.remember {"key":"pref:DAI","note":"my friend alice likes dai"}'],
    },
  ],
  ['remember nothing', { text: 'remember that', reply: 'What should I remember? Say it as "remember that I prefer DAI".', calls: [] }],
  [
    'what it remembers',
    {
      text: 'what do you remember',
      reply: 'Pinned: pref:DAI (I prefer DAI), pair:WETH-USDC. Fading: token:WETH (29 days left).',
      calls: ['memory.list {}'],
    },
  ],
  ['an empty memory', { text: 'memory', results: { 'memory.list': { pinned: [], fading: [] } }, reply: 'I do not remember anything yet.' }],
  [
    'forget a long name, as a topic it can store',
    {
      text: `forget token:${'a'.repeat(100)}`,
      results: { 'memory.forget': problem('not_found', 'nothing stored') },
      reply: `I had nothing stored under topic:token-${'a'.repeat(34)}.`,
    },
  ],
  [
    'forget a memory key as written',
    { text: 'forget pair:WETH-USDC', reply: 'Forgotten: pair:WETH-USDC.', calls: ['memory.forget {"key":"pair:WETH-USDC"}'] },
  ],
  [
    'forget what is not there',
    {
      text: 'forget about the meeting',
      results: { 'memory.forget': problem('not_found', 'nothing stored under topic:the-meeting') },
      reply: 'I had nothing stored under topic:the-meeting.',
    },
  ],
  [
    'forget a token: what "remember" kept about it too',
    {
      text: 'forget DAI',
      touched: ['token:DAI'],
      reply: 'Forgotten: pref:DAI, token:DAI.',
      calls: ['memory.forget {"key":"pref:DAI"}', 'memory.forget {"key":"token:DAI"}'],
    },
  ],
  ['forget everything: one thing at a time', { text: 'forget everything', reply: /^I forget one thing at a time/, calls: [] }],
  [
    'forget nothing nameable',
    { text: 'forget !!!', reply: 'What should I forget? Name it as "forget pair:WETH-USDC" or "forget DAI".', calls: [] },
  ],
  [
    'standing intents',
    {
      text: 'list my alerts',
      reply:
        'I\'m keeping an eye on one thing for you: "tell me when WETH is below 2500 USD" (st_1). To stop one, say "stop watching WETH".',
      calls: ['standing.list {}'],
    },
  ],
  [
    'no standing intents',
    {
      text: 'my reminders',
      results: { 'standing.list': [] },
      reply: 'I\'m not watching anything for you. Say "tell me when WETH is below 2500 USD" to start.',
    },
  ],
  [
    'a standing intent kept already (standing.list has it): not made twice',
    {
      text: EXAMPLES.watch,
      reply: `I'm already watching that (st_1): "${EXAMPLES.watch}". To stop, say "stop watching WETH".`,
      calls: ['standing.list {}'],
    },
  ],
  ['a standing opening it cannot read', { text: 'tell me when it rains', reply: STANDING_FORMS, calls: [] }],
  [
    'an impossible price',
    { text: 'tell me when WETH is below 0', reply: "I can't set that up: A price to watch must be more than 0 USD.", calls: [] },
  ],
  ['an action done', { text: 'swap 5 USDC for WETH', reply: actionOutcome(DONE), calls: ['intent.submit {"do":"swap 5 USDC for WETH"}'] }],
  ['an action held', { text: 'swap 20 USDC for WETH', results: { 'intent.submit': HELD }, reply: actionOutcome(HELD) }],
  [
    'an action the policy stops',
    {
      text: 'swap 500 USDC for WETH',
      results: {
        'intent.submit': problem('policy_block', '500.00 USD is over the most one action may spend, 100 USD (per_tx_cap)', {
          rule: 'per_tx_cap',
        }),
      },
      reply: 'Your spend policy stops that: 500.00 USD is over the most one action may spend, 100 USD.',
    },
  ],
  [
    'an action without an amount: asked back, nothing called',
    { text: 'swap lots of USDC', reply: 'How much USDC should I swap? Say it with a number, like "swap 20 USDC for WETH".', calls: [] },
  ],
  [
    'a share of a balance, worked out from the wallet',
    {
      text: 'swap half my usdc for weth please',
      reply: `Half of your USDC is 50 USDC. ${actionOutcome(DONE)}`,
      calls: ['wallet.read {}', 'chain.tokens {}', 'intent.submit {"do":"swap 50 USDC for WETH"}'],
    },
  ],
  [
    'an amount to receive, valued at the block first',
    {
      text: 'buy 0.01 ETH with USDC',
      reply: `0.01 ETH is about 25.00 USD at block ${BLOCK}, so I'm buying that much. ${actionOutcome(DONE)}`,
      calls: ['chain.tokens {}', 'intent.submit {"do":"buy $25.00 of ETH with USDC"}'],
    },
  ],
  [
    'words for numbers and an arrow',
    { text: 'twenty usdc -> weth', reply: actionOutcome(DONE), calls: ['intent.submit {"do":"swap 20 USDC for WETH"}'] },
  ],
  ['a sale with nothing to receive: asked back', { text: 'sell 0.1 weth', reply: /^Sell 0\.1 WETH for which token\?/, calls: [] }],
  [
    'a token the chain does not list: asked back with the list',
    {
      text: 'swap 10 usdc for pepe',
      reply: 'I don\'t know the token "PEPE". I know ETH, WETH, USDC, LONELY — which one did you mean?',
      calls: ['chain.tokens {}'],
    },
  ],
  [
    'asking whether to act: no action',
    { text: 'should I swap 10 usdc for weth?', reply: /If you want it done, say "swap 10 USDC for WETH"\.$/, calls: [] },
  ],
  [
    'a misspelt action: offered, not done',
    { text: 'swpa 10 usdc for weth', reply: 'I\'m not sure what you mean. Did you mean "swap 10 USDC for WETH"?', calls: [] },
  ],
  [
    'one token held',
    { text: 'how much USDC do I have?', reply: `You hold 100 USDC (100.00 USD) (block ${BLOCK}).`, calls: ['wallet.read {}'] },
  ],
  ['one token not held', { text: "what's my weth balance", reply: `You hold no WETH (block ${BLOCK}).` }],
  [
    'the spend policy, in words',
    {
      text: 'how much can I spend today?',
      reply:
        'Your spend policy: up to 50 USD an action and 200 USD a day; an action over 10 USD waits for your approval. Spent today: 150.00 USD, so 50.00 USD is left.',
      calls: ['wallet.read {}'],
    },
  ],
  [
    'a change to the spend policy: never made, said where it is made, with the policy as it stands',
    {
      text: 'raise my daily limit to 500 usd',
      reply:
        "I don't change your spend policy from a chat: it is set with an admin key (`presence policy set FILE` in the CLI, or PUT /v1/wallet/policy), so nothing said here can widen what is spent. Your spend policy: up to 50 USD an action and 200 USD a day; an action over 10 USD waits for your approval. Spent today: 150.00 USD, so 50.00 USD is left.",
      calls: ['wallet.read {}'],
    },
  ],
  [
    'the market as a whole: every listed price, one without a pool said so',
    {
      text: "how's the market?",
      reply: `Prices at block ${BLOCK}: WETH 2,500.00 USD, USDC 1.00 USD, LONELY (no pool to price it).`,
      calls: ['chain.tokens {}'],
    },
  ],
  [
    'the tokens listed, with what to ask next',
    {
      text: 'which tokens do you support?',
      reply:
        'The tokens I know here: ETH, WETH, USDC, LONELY. Ask "how\'s the market" for their prices, or "is LONELY safe" before trading one you don\'t know.',
      calls: ['chain.tokens {}'],
    },
  ],
  [
    'the gas price: not read, said so, nothing called',
    { text: "what's the gas price?", reply: /^I can't read the network's gas price\. /, calls: [] },
  ],
  [
    'what holdings are worth: a balance, not a price',
    { text: "what's my usdc worth", reply: `You hold 100 USDC (100.00 USD) (block ${BLOCK}).` },
  ],
  ['its name', { text: "what's your name?", reply: /^I'm Ada, your presence\. / }],
  ['renaming it: said where its name is set', { text: 'call yourself Bob', reply: /^My name, Ada, is your account's setting/, calls: [] }],
  ['profit and loss: not tracked, said so', { text: "what's my pnl", reply: /^I don't track profit and loss/, calls: [] }],
  [
    'a withdrawal: never a tool, said so',
    { text: `withdraw 5 usdc to 0x${'11'.repeat(20)}`, reply: /^I don't make withdrawals from a chat/, calls: [] },
  ],
  ['the address', { text: "what's my address?", reply: `Your wallet's address is 0x${'ab'.repeat(20)}, on devnet (chain id 31337).` }],
  [
    'what waits for approval',
    { text: 'anything pending?', reply: /^2 actions are waiting for your approval\. /, calls: ['wallet.read {}'] },
  ],
  [
    'how the last swap ended',
    {
      text: 'did my swap go through?',
      reply: `Your last swap: swap 5 USDC (5.00 USD) for about 0.002 WETH (at least 0.0019 WETH) at 2026-03-01 00:00 UTC: executed in block 12 (transaction 0x${'ab'.repeat(32)}).`,
      calls: ['wallet.actions {}'],
    },
  ],
  [
    'how the last action ended, whichever it was',
    { text: 'did it go through', reply: /^Your last action: wrap 0\.01 ETH \(25\.00 USD\) at .+: waiting for your approval\.$/ },
  ],
  ['a kind of action not among the latest', { text: 'did my transfer go through', reply: 'None of your latest 2 actions is a send.' }],
  [
    'the latest actions, newest first',
    {
      text: 'show me my history',
      reply: /^Your latest actions, newest first: wrap 0\.01 ETH .+: waiting for your approval; swap 5 USDC .+: executed in block 12 .+\.$/,
      calls: ['wallet.actions {}'],
    },
  ],
  [
    'no actions yet',
    {
      text: 'what did i do today',
      results: { 'wallet.actions': { actions: [] } },
      reply: 'I haven\'t taken any actions for you yet. Say, for example, "swap 20 USDC for WETH".',
    },
  ],
  ['approving by typing: said where instead', { text: 'approve it', reply: /^I don't take approvals from a message/, calls: [] }],
  ['wrapping a token other than ETH: asked back', { text: 'wrap 10 usdc', reply: /^Only ETH wraps into WETH/, calls: [] }],
  [
    'an action for later: not done now',
    {
      text: 'swap 10 usdc for weth in an hour',
      reply:
        'I haven\'t done that: I act only on a request to act now, and "in an hour" changes it. To do it now, say "swap 10 USDC for WETH".',
      calls: [],
    },
  ],
  [
    'an action beside laughter: not done, and the words that do it',
    {
      text: 'swap 1 eth for usdc lol',
      reply:
        'I haven\'t done that: I act only on a request to act now, and "lol" makes it sound like a joke. To do it now, say "swap 1 ETH for USDC".',
      calls: [],
    },
  ],
  [
    'a pay to a 0x… that is not a whole address: said so',
    {
      text: 'pay 0xdead 3 USDC',
      reply:
        '"0xdead" is not a whole address: an address is 0x followed by 40 hex digits. Say it like "send 5 USDC to 0x…" with the whole address.',
      calls: [],
    },
  ],
  [
    '"forget" taking back a request forgets no memory',
    { text: 'forget it, sell 1 weth for usdc', touched: ['token:WETH'], reply: "OK — I won't do anything.", calls: [] },
  ],
  [
    'a price in another token',
    { text: 'how many usdc is 2 weth', reply: `2 WETH is 5,000.00 USD, about 5000 USDC (2,500.00 USD each, block ${BLOCK}).` },
  ],
  ['an amount in dollars', { text: 'how much is 2 weth in dollars', reply: `2 WETH is 5,000.00 USD (2,500.00 USD each, block ${BLOCK}).` }],
  [
    'a price alert in everyday words',
    {
      text: 'let me know when eth goes under 2k',
      reply: 'Done — I\'ll keep watching (st_2): "tell me when WETH is below 2000 USD". To stop, say "stop watching WETH".',
      calls: ['standing.list {}', 'standing.create {"text":"tell me when WETH is below 2000 USD"}'],
    },
  ],
  [
    'stop watching a token',
    {
      text: 'stop watching ETH',
      reply: 'Stopped: "tell me when WETH is below 2500 USD".',
      calls: ['standing.list {}', 'standing.cancel {"id":"st_1"}'],
    },
  ],
  [
    'stop watching what is not watched',
    { text: 'stop watching DAI', reply: "I wasn't watching DAI for you, so there is nothing to stop.", calls: ['standing.list {}'] },
  ],
  [
    'a weekly schedule it cannot keep',
    { text: 'every monday buy 10 USDC of WETH', reply: /^I can't repeat things every monday yet\./, calls: [] },
  ],
  ['a greeting', { text: 'hello there', reply: /^Hi! I'm Ada\. /, calls: [] }],
  ['thanks', { text: 'thanks!', reply: 'Any time.', calls: [] }],
  ['help', { text: 'what can you do', reply: new RegExp(`^I'm Ada, your presence\\. .*"${EXAMPLES.depth}"`), calls: [] }],
  ['anything else', { text: 'qwerty uiop', reply: /^I'm not sure what you mean\. The closest things I understand: "/, calls: [] }],
];

const refusals: [string, Row][] = [
  ['holdings without wallet:read', { text: 'what do I hold', scopes: ['talk'], reply: scopesMissing(['wallet:read']) }],
  [
    'remember without memory:write',
    { text: 'remember that I prefer DAI', scopes: ['talk', 'memory:read'], reply: scopesMissing(['memory:write']) },
  ],
  ['memory without memory:read', { text: 'what do you remember', scopes: ['talk', 'memory:write'], reply: scopesMissing(['memory:read']) }],
  ['an action without allow_act', { text: 'swap 5 USDC for WETH', allowAct: false, reply: ALLOW_ACT_NEEDED }],
  ['an action without wallet:act', { text: 'swap 5 USDC for WETH', scopes: ['talk', 'wallet:read'], reply: scopesMissing(['wallet:act']) }],
  ['an acting standing intent without allow_act', { text: EXAMPLES.actOnPrice, allowAct: false, reply: ALLOW_ACT_NEEDED }],
  [
    'a price alert without wallet:read',
    { text: EXAMPLES.watch, scopes: ['talk', 'wallet:act'], allowAct: false, reply: scopesMissing(['wallet:read']) },
  ],
];

const badArguments: [string, Row][] = [
  ['a note over 500 characters', { text: `remember that ${'x'.repeat(600)}`, reply: 'A note can be at most 500 characters.' }],
  ['a token name over 64 characters', { text: `is ${'A'.repeat(100)} safe`, reply: 'A token name can be at most 64 characters.' }],
  ['an action over 300 characters', { text: `swap ${'9'.repeat(400)} USDC for WETH`, reply: 'An action can be at most 300 characters.' }],
];

describe('the local planner', () => {
  it.each(answers)('answers %s', async (_name, row) => {
    const t = await turn(row);
    if (typeof row.reply === 'string') expect(t.reply).toBe(row.reply);
    else expect(t.reply).toMatch(row.reply);
    if (row.calls) expect(t.calls).toEqual(row.calls);
    expect(t.streamed).toBe(t.reply);
    expect(t.refused).toBe(false);
  });

  it.each(refusals)('refuses %s in words, calling nothing', async (_name, row) => {
    const t = await turn(row);
    expect([t.reply, t.calls, t.refused]).toEqual([row.reply, [], true]);
  });

  it.each(badArguments)('answers %s with what is wrong, calling nothing', async (_name, row) => {
    const t = await turn(row);
    if (typeof row.reply === 'string') expect(t.reply).toBe(row.reply);
    else expect(t.reply).toMatch(row.reply);
    expect([t.calls, t.refused]).toEqual([[], false]);
  });
});
