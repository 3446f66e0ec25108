// Whatever a user can type gets an answer: every input below — overlong notes, keys and
// standing texts, malformed keys and addresses, huge numbers, too many decimals, unknown
// tokens, absurd times and prices — is posted to POST /v1/messages plain and streamed, and
// must come back 200 with a reply in words (streamed: a `done`), never a 5xx or an `error`
// event. The presence answers in the conversation rather than with a 4xx: it is chat.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, removeDir, startTestServer, type TestServer } from './harness';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ chain: true, env: { PRESENCE_RATE_LIMIT: '100000/60s' } });
});
afterAll(async () => {
  await s.close();
  removeDir(s.dataDir);
});

const big = '9'.repeat(90);
const addr = `0x${'12'.repeat(20)}`;

/** [text, allow_act, what the reply must say (when it is worth pinning down)]. */
const table: [string, boolean, RegExp?][] = [
  [`remember that ${'x'.repeat(600)}`, false, /at most 500 characters/],
  [`remember that ${'word '.repeat(790)}`, false, /at most 500 characters/],
  [`remember that ${'x'.repeat(500)}`, false, /^Noted/],
  ['remember that', false, /What should I remember/],
  ['remember that !!!', false, /What should I remember/],
  [`remember that I like token:${'a'.repeat(100)}`, false],
  [`forget token:${'a'.repeat(100)}`, false],
  [`forget ${'x'.repeat(3_990)}`, false],
  ['forget addr:not-an-address', false],
  ['forget pair:', false],
  ['forget !!!', false, /What should I forget/],
  ['forget 🙂', false, /What should I forget/],
  [`tell me when WETH is below ${'9'.repeat(400)}`, false, /at most 1,000,000,000,000 USD/],
  [`tell me when WETH is below 2500 ${'usd '.repeat(80)}`, false],
  [`tell me when WETH is below 2500${' '.repeat(300)}USD`, false, /^Done/],
  [`tell me when WETH is below ${big}`, false, /at most 1,000,000,000,000 USD/],
  ['tell me when WETH is below 0', false, /more than 0 USD/],
  ['tell me when WETH is below 2500.1234567890123456789', false, /at most 18 decimal places/],
  ['tell me when NOPE is below 5', false, /don't know the token "NOPE"/],
  [`tell me when ${'W'.repeat(300)} is below 5`, false],
  ['tell me when WETH is below 1,2,3,4', false],
  ['every day at 99:99 tell me my balance', false, /not a time of day/],
  ['every day at 24:00 tell me my balance', false, /not a time of day/],
  ['if WETH drops below 2000 do a little dance', true, /^I can't set that up: I could not read/],
  ['if WETH drops below 2000 do a little dance', false],
  [`if WETH drops below ${big} buy $5 of WETH`, true, /at most 1,000,000,000,000 USD/],
  [`if WETH drops below 2000 buy $${big} of WETH`, true],
  ['if WETH drops below 2000 swap 1.1234567 USDC for WETH', true, /more decimal places than that token has \(6\)/],
  ['if WETH drops below 2000 sell 0 WETH', true, /more than zero/],
  ['if WETH drops below 2000 buy $5 of NOPE', true, /don't know the token "NOPE"/],
  [`if WETH drops below 2000 swap 5 USDC for WETH ${'and more '.repeat(40)}`, true],
  [`swap ${'9'.repeat(400)} USDC for WETH`, true, /An action can be at most 300 characters/],
  [`swap ${big} USDC for WETH`, true],
  [`swap ${big} USDC for WETH`, false],
  ['swap 1.1234567 USDC for WETH', true],
  ['swap 1e99 USDC for WETH', true],
  ['swap 0 USDC for WETH', true],
  ['swap 5 NOPE for WETH', true],
  ['swap 5 USDC for USDC', true],
  [`buy $${big} of WETH`, true],
  ['buy $0.0000000000000000001 of WETH', true],
  [`sell ${big} WETH`, true],
  [`wrap ${big} ETH`, true],
  ['wrap 0.0000000000000000001 ETH', true],
  [`unwrap ${big} WETH`, true],
  ['send 5 USDC to 0x123', true],
  [`send 5 USDC to 0x${'g'.repeat(40)}`, true],
  [`send ${big} USDC to ${addr}`, true],
  [`send 5 NOPE to ${addr}`, true],
  [`is ${'A'.repeat(3_000)} safe`, false, /A token name can be at most 64 characters/],
  [`is ${addr} safe`, false],
  ['is NOPE safe', false],
  ['check token 0x0000000000000000000000000000000000000000', false],
  [`how deep is ${'A'.repeat(2_000)}-B`, false, /A pair can be at most 100 characters/],
  ['how deep is FOO-BAR', false],
  ['how deep is WETH-WETH', false],
  [`what is ${'Z'.repeat(3_000)} worth`, false],
  [Array.from({ length: 90 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`).join(' '), false],
  ['\u0000\u0007\u001b[31m', false],
];
const label = (t: string) => JSON.stringify(t.length > 60 ? `${t.slice(0, 40)}… (${t.length} chars)` : t);
const cases = table.map(([text, allowAct, says]) => ({ name: label(text), text, allowAct, says }));

async function streamed(text: string, allowAct: boolean) {
  const res = await fetch(`${s.url}/v1/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.live}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text, stream: true, allow_act: allowAct }),
  });
  const frames = (await res.text())
    .split('\n\n')
    .filter((b) => /^event: /m.test(b))
    .map((b) => ({ event: /^event: (\w+)/m.exec(b)?.[1] as string, data: JSON.parse(/^data: (.*)$/m.exec(b)?.[1] ?? 'null') }));
  return { status: res.status, frames };
}

describe('every input gets a reply, never a 5xx', () => {
  it.each(cases)('$name (allow_act $allowAct)', async ({ name, text, allowAct, says }) => {
    const plain = await call(s.url, 'POST', '/v1/messages', { key: s.live, body: { text, allow_act: allowAct } });
    expect(plain.status, `${name}: ${plain.text.slice(0, 300)}`).toBe(200);
    expect(typeof plain.json.reply).toBe('string');
    expect(plain.json.reply.length).toBeGreaterThan(0);
    expect(plain.json.acted).toBe(false);
    if (says) expect(plain.json.reply).toMatch(says);

    const live = await streamed(text, allowAct);
    expect(live.status).toBe(200);
    const last = live.frames.at(-1);
    expect(last?.event, `${name}: ${JSON.stringify(last?.data).slice(0, 300)}`).toBe('done');
    expect(last?.data.reply.length).toBeGreaterThan(0);
    expect(last?.data.acted).toBe(false);
  });

  it('text over 4,000 characters is still a 400 problem, plain and streamed', async () => {
    const plain = await call(s.url, 'POST', '/v1/messages', { key: s.live, body: { text: 'x'.repeat(4_001) } });
    expect([plain.status, plain.json.type]).toEqual([400, 'invalid_request']);
    const live = await fetch(`${s.url}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'x'.repeat(4_001), stream: true }),
    });
    expect(live.status).toBe(400);
  });
});
