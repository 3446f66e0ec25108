// The reader against the phrasing corpus: the score is printed (all rows, and each kind), at
// least 90% must read right, every must-ask row must be a question back, and no row that asks
// for no action may be read as one. Then the properties that hold for any text: an action is
// only ever built from amounts and tokens present in the words.
import { expect, it, describe as suite } from 'vitest';
import { AMOUNTS } from './phrasings.amounts';
import * as blind from './phrasings.blind';
import { ACTIONS, MUST_ASK, NOT_ACTIONS, type Phrasing, QUESTIONS, STANDING } from './phrasings.corpus';
import { EVERYDAY } from './phrasings.everyday';
import { HEDGED } from './phrasings.hedged';
import { HELD_OUT, HELD_OUT_2, HELD_OUT_3 } from './phrasings.heldout';
import { readMessage } from './read-message';
import { describe, intentWords, isAction } from './reading';

const KNOWN = ['WETH', 'USDC', 'DAI', 'SCAM'];
const read = (text: string) => readMessage(text, { known: KNOWN, presenceName: 'Ada' });

function score(rows: Phrasing[]) {
  const misses = rows
    .filter(([text, want]) => describe(read(text)) !== want)
    .map(([text, want]) => `${text} → ${describe(read(text))} (want ${want})`);
  return { right: rows.length - misses.length, of: rows.length, misses };
}

const SETS: [string, Phrasing[]][] = [
  ['actions', ACTIONS],
  ['questions', QUESTIONS],
  ['standing', STANDING],
  ['must ask', MUST_ASK],
  ['not actions', NOT_ACTIONS],
  ['hedged', HEDGED],
  ['amounts', AMOUNTS],
  ['everyday', EVERYDAY],
  ...Object.entries(blind).map(([name, rows]): [string, Phrasing[]] => [name.replace('BLIND_', 'blind '), rows]),
];
// rows kept as written by others, and checked row by row for asking back and not acting
const BLIND = [...Object.values(blind).flat(), ...EVERYDAY, ...AMOUNTS];
const MUST_NOT_ACT = ['not_now', 'none', 'unsupported', 'ask'];

suite('the phrasing corpus', () => {
  it('reads at least 90% of everyday phrasings right (score printed)', () => {
    const all = SETS.flatMap(([, rows]) => rows);
    expect(all.length).toBeGreaterThanOrEqual(200);
    const lines = SETS.map(([name, rows]) => {
      const s = score(rows);
      return `  ${name.padEnd(12)} ${s.right}/${s.of}${s.misses.map((m) => `\n    miss: ${m}`).join('')}`;
    });
    const total = score(all);
    console.log(`phrasing corpus: ${total.right}/${total.of} (${((100 * total.right) / total.of).toFixed(1)}%)\n${lines.join('\n')}`);
    expect(total.right / total.of).toBeGreaterThanOrEqual(0.9);
  });

  it('asks back on every ambiguous request', () => {
    expect(score([...MUST_ASK, ...BLIND.filter(([, want]) => want === 'ask')]).misses).toEqual([]);
  });

  it('acts on none of the messages that ask for no action', () => {
    const rows = [...NOT_ACTIONS, ...HEDGED, ...BLIND.filter(([, want]) => MUST_NOT_ACT.includes(want))];
    expect(rows.map(([t]) => t).filter((t) => isAction(read(t)))).toEqual([]);
  });
});

// The held-out set is scored apart, as it was measured before the reader was changed for it
// (phrasings.heldout.ts): its own score is printed, and its must-ask and must-not-act rows are all required.
suite.each([
  ['held-out set', HELD_OUT],
  ['held-out set 2', HELD_OUT_2],
  ['held-out set 3', HELD_OUT_3],
])('the %s', (name, rows) => {
  it('reads at least 90% of it right (score printed)', () => {
    const s = score(rows);
    console.log(`${name}: ${s.right}/${s.of} (${((100 * s.right) / s.of).toFixed(1)}%)${s.misses.map((m) => `\n    miss: ${m}`).join('')}`);
    expect(s.right / s.of).toBeGreaterThanOrEqual(0.9);
  });

  it('asks back on every ambiguous row, and acts on no row that asks for no action', () => {
    expect(score(rows.filter(([, want]) => want === 'ask')).misses).toEqual([]);
    const quiet = rows.filter(([, want]) => MUST_NOT_ACT.includes(want)).map(([t]) => t);
    expect(quiet.filter((t) => isAction(read(t)))).toEqual([]);
  });
});

suite('a later time typed short is never dropped', () => {
  it.each([
    'tmrw',
    'tmr',
    '2moro',
    'l8r',
    'tonite',
    'nxt week',
    'on the wknd',
    'tmorow',
    'tonihgt',
    'jk',
    'kiding',
    'eod',
    'by eow',
    'at lunch',
    'at close',
    'in the morning',
    'end of month',
  ])('"swap 10 usdc for weth %s" is not done, and says why', (when) => {
    const r = read(`swap 10 usdc for weth ${when}`);
    expect(r).toMatchObject({ kind: 'not_now', reply: expect.stringMatching(/changes it|puts it off/) });
  });

  it.each(['maybe later', 'tomorrow', 'lol imagine if i', 'hypothetically,'])(
    '"%s swap 10 usdc for weth" names the words that put it off',
    (lead) => {
      const r = read(`${lead} swap 10 usdc for weth`);
      expect(r).toMatchObject({ kind: 'not_now', reply: expect.stringContaining('"') });
    },
  );
});

suite('asking whether to act, or whether one can, is answered, not acted on', () => {
  it.each(['can i swap 10 usdc for weth', 'could i swap 10 usdc for weth?', 'is it possible to swap 10 usdc for weth'])(
    '"%s" says it can be done, and the words that do it',
    (text) => {
      expect(read(text)).toMatchObject({
        kind: 'not_now',
        reply: 'You can: say "swap 10 USDC for WETH" and I\'ll do it, within your spending policy.',
      });
    },
  );

  it.each(['should i swap 10 usdc for weth', 'is it a good time to swap 10 usdc for weth'])('"%s" gives no advice', (text) => {
    expect(read(text)).toMatchObject({
      kind: 'not_now',
      reply: expect.stringMatching(/^I don't give trading advice.*"swap 10 USDC for WETH"/),
    });
  });
});

suite('an amount given as a bound or an estimate is asked back, never taken as exact', () => {
  it.each([
    ['buy up to $20 of weth', 'a limit', 'buy $20 of WETH'],
    ['swap at least 0.1 weth for usdc', 'a floor', 'swap 0.1 WETH for USDC'],
    ['swap roughly 20 usdc for weth', 'an estimate', 'swap 20 USDC for WETH'],
  ])('"%s" is %s, with the exact words offered', (text, kind, words) => {
    expect(read(text)).toMatchObject({
      kind: 'ask',
      question: expect.stringContaining(`makes it ${kind}. How much exactly? If the number is right, say "${words}"`),
    });
  });
});

suite('a joke beside a request is never acted on', () => {
  it.each([
    'swap 1 eth for usdc lol',
    'lol swap 1 eth for usdc',
    'swap 1 eth for usdc hahaha',
    'swap 1 eth for usdc. lmao',
    'haha, send 5 usdc to 0x1111111111111111111111111111111111111111',
  ])('"%s" is not done: the laughter is named, with the words that act', (text) => {
    expect(read(text)).toMatchObject({
      kind: 'not_now',
      reply: expect.stringMatching(/"(?:lol|hahaha|lmao|haha)" makes it sound like a joke\. To do it now, say "/),
    });
  });

  it.each([
    'swap 1 eth for usdc lol jk',
    'swap 1 eth for usdc jk lol',
    'lol jk swap 1 eth for usdc',
    'jk swap 1 eth for usdc',
    'swap 1 eth for usdc. just kidding',
    'swap 1 eth for usdc!! jk',
  ])('"%s": laughter hides no "jk"', (text) => {
    expect(read(text)).toMatchObject({ kind: 'not_now', reply: expect.stringMatching(/\bjk\b|kidding|won't do anything/) });
  });

  it.each([
    ['swap 10 usdc for weth 😂', '😂'],
    ['🤣 buy 20 usdc of weth', '🤣'],
    ['swap 5 dai for weth 💀', '💀'],
    ['swap 1 eth for usdc. 😆', '😆'],
    ['sell 0.1 weth for usdc 😹😹', '😹'],
  ])('"%s": laughter in emoji is laughter in words', (text, emoji) => {
    expect(read(text)).toMatchObject({
      kind: 'not_now',
      reply: expect.stringContaining(`"${emoji}" makes it sound like a joke. To do it now, say "`),
    });
  });

  it.each([
    ['what do i hold 😂', 'balance all'],
    ['is scam safe 💀', 'safety SCAM'],
  ])('laughter in emoji around a question is filler: "%s"', (text, want) => {
    expect(describe(read(text))).toBe(want);
  });

  it('"just kidding" in front is named whole', () => {
    expect(read('just kidding, swap 1 eth for usdc')).toMatchObject({
      kind: 'not_now',
      reply:
        'I haven\'t done that: I act only on a request to act now, and "just kidding" makes it a joke. To do it now, say "swap 1 ETH for USDC".',
    });
  });

  it('"if eth drops below 2000 buy $50 of weth lol" sets nothing up', () => {
    expect(read('if eth drops below 2000 buy $50 of weth lol')).toMatchObject({ kind: 'not_now', reply: expect.stringContaining('"lol"') });
  });

  it.each([
    ['what do i hold lol', 'balance all'],
    ['lol is scam safe', 'safety SCAM'],
    ['ugh gas is crazy lol. swap 10 usdc for weth', 'swap 10 USDC WETH'],
  ])('laughter around anything else is filler: "%s"', (text, want) => {
    expect(describe(read(text))).toBe(want);
  });
});

suite('a tail that may say when or on what condition is asked about', () => {
  const A = '0x1111111111111111111111111111111111111111';
  it.each([
    ['swap 10 usdc for weth at dawn', 'at dawn'],
    ['swap 10 usdc for weth this arvo', 'this arvo'],
    [`send 5 usdc to ${A} on weds`, 'on weds'],
    ['buy $20 of weth in march', 'in march'],
    ['swap 10 usdc for weth soonish', 'soonish'],
    ['sell 0.1 weth for usdc as long as gas stays low', 'as long as gas stays low'],
  ])('"%s"', (text, tail) => {
    expect(read(text)).toMatchObject({
      kind: 'ask',
      question: expect.stringContaining(`By "${tail}" do you mean when to do it, or on what condition?`),
    });
  });

  it.each([`send 5 usdc to ${A} as soon as it lands`, `send 5 usdc to ${A} for tomorrow`])('"%s" is not sent now', (text) => {
    expect(read(text)).toMatchObject({ kind: 'not_now', reply: expect.stringContaining('changes it') });
  });

  it.each([
    ['swap 10 usdc for weth on uniswap', 'swap 10 USDC WETH'],
    [`send 5 usdc to ${A} for rent`, `send 5 USDC ${A}`],
    [`send 5 usdc to ${A} as a gift`, `send 5 USDC ${A}`],
    ['sell all my DAI for USDC, closing out the month', 'swap all DAI USDC'],
    ['swap 10 usdc for weth, month-end rebalance', 'swap 10 USDC WETH'],
    ['sell 0.2 weth for usdc wrapping up the year', 'swap 0.2 WETH USDC'],
  ])('a reason is still read past: "%s"', (text, want) => {
    expect(describe(read(text))).toBe(want);
  });
});

suite('a chore is a reason, but a time beside it still changes the request', () => {
  it.each([
    'sell all my dai for usdc at the end of the month',
    'sell all my dai for usdc closing out the month tomorrow',
    'swap 10 usdc for weth end of month',
  ])('"%s" is not done', (text) => {
    expect(read(text)).toMatchObject({ kind: 'not_now' });
  });

  it('a request asked about is still put off by its time: "sell all my dai at the end of the month"', () => {
    expect(read('sell all my dai at the end of the month')).toMatchObject({
      kind: 'not_now',
      reply: expect.stringContaining('"at the end of the month" changes it'),
    });
  });
});

suite('a share said as any ordinal is a share', () => {
  it.each([
    ['wrap a tenth of my eth', 'wrap 1/10'],
    ['swap three fifths of my dai for usdc', 'swap 3/5 DAI USDC'],
    ['sell an eighth of my weth for dai', 'swap 1/8 WETH DAI'],
    ['sell a fifth weth for usdc', 'ask'],
  ])('"%s"', (text, want) => {
    expect(describe(read(text))).toBe(want);
  });
});

suite('two amounts offered, or a number with no token, are asked', () => {
  it.each([
    ['swap 10 or 20 usdc for weth', /10 or 20/],
    [`send 5-10 dai to 0x1111111111111111111111111111111111111111`, /5 or 10/],
    ['buy 10 to 15 dollars of weth', /10 or 15/],
    ['swap 20 for weth', /^20 of which token\?/],
    ['spend 50 on weth', /^50 of which token\?/],
  ])('"%s"', (text, q) => {
    expect(read(text)).toMatchObject({ kind: 'ask', question: expect.stringMatching(q) });
  });
});

suite('a request with no amount put off to later says the later, not "which token"', () => {
  it.each([
    ['swap some usdc for weth tomorrow', 'tomorrow'],
    ['sell some weth later', 'later'],
    ['buy a bit of weth tonight', 'tonight'],
  ])('"%s"', (text, later) => {
    const r = read(text);
    expect(r).toMatchObject({ kind: 'not_now', reply: expect.stringContaining(`"${later}" changes it`) });
    expect(JSON.stringify(r)).not.toMatch(/which token/);
  });
});

suite('a 0x… that is not a whole address is said to be one', () => {
  it.each([
    ['pay 0xdead 3 USDC', '0xdead'],
    ['send 3 usdc to 0xDEAD', '0xdead'],
    ['send 3 usdc to 0x11111111111111111111111111111111111111111', '0x11111111111111111111111111111111111111111'],
  ])('"%s"', (text, typed) => {
    expect(read(text)).toMatchObject({
      kind: 'ask',
      question: `"${typed}" is not a whole address: an address is 0x followed by 40 hex digits. Say it like "send 5 USDC to 0x…" with the whole address.`,
    });
  });
});

suite('an amount that reads two ways is asked, naming both', () => {
  it.each([
    ['swap 1,500k usdc for weth', /1500000 or 1500\b/],
    ['swap 1,500 usdc for weth', /1500 or 1\.5/],
    ['sell half weth for usdc', /half of your WETH, or half of one WETH/],
  ])('"%s"', (text, both) => {
    expect(read(text)).toMatchObject({ kind: 'ask', question: expect.stringMatching(both) });
  });
});

suite('an action is built only from what was said', () => {
  it('the amount and tokens of the intent words appear in the message', () => {
    for (const [text] of [...ACTIONS, ...BLIND]) {
      const r = read(text);
      if (!isAction(r) || r.kind === 'buy_exact' || ('amount' in r && 'share' in r.amount)) continue;
      const words = intentWords(r);
      const n = /\$?(\d+(?:\.\d+)?)/.exec(words)?.[1] as string;
      expect(read(words), `${text} → ${words}`).toEqual(r.kind === 'swap' && !r.to ? expect.anything() : r);
      expect(Number(n)).toBeGreaterThan(0);
    }
  });

  it('a token the chain does not list is asked about, and one it lists is read', () => {
    expect(read('swap 10 usdc for pepe')).toMatchObject({ kind: 'ask', unknown: 'pepe' });
    expect(describe(readMessage('swap 10 usdc for pepe', { known: [...KNOWN, 'PEPE'] }))).toBe('swap 10 USDC PEPE');
  });

  it('keeps the letter case of an address (its checksum)', () => {
    const to = '0x52908400098527886E0F7030069857D2E4169EE7';
    expect(read(`SEND 1 USDC TO ${to}`)).toMatchObject({ kind: 'send', to });
  });
});
