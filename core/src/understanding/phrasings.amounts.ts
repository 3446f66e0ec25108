// Amounts as people in different places type them: in words from the decimal point ("point
// one"), with a decimal comma ("0,5"), with thousands grouped by commas, spaces or apostrophes.
// Where a grouping reads two ways ("1,500" is 1.5 where the comma is the decimal mark; "10 100"
// may be two numbers; "half weth" is half the holding or half of one) an action on it is asked
// back: never the larger reading unasked. A question or an alert reads the thousand, as
// nothing is spent on it (docs/behaviour.md).
import type { Phrasing } from './phrasings.corpus';

const A = '0x1111111111111111111111111111111111111111';

export const AMOUNTS: Phrasing[] = [
  ['swap point one eth for usdc', 'swap 0.1 ETH USDC'],
  ['sell point zero five weth for usdc', 'swap 0.05 WETH USDC'],
  ['wrap point 5 eth', 'wrap 0.5'],
  ['swap half an eth for usdc', 'swap 0.5 ETH USDC'],
  ['swap 0,5 weth for usdc', 'swap 0.5 WETH USDC'],
  ['unwrap 0,25 weth', 'unwrap 0.25'],
  ['wrap 1,5 eth', 'wrap 1.5'],
  [`send 2,75 usdc to ${A}`, `send 2.75 USDC ${A}`],
  ['swap 1,000,000 usdc for weth', 'swap 1000000 USDC WETH'],
  ['swap 1,250.50 usdc for weth', 'swap 1250.50 USDC WETH'],
  ['swap 1\u2009000 usdc for weth', 'swap 1000 USDC WETH'],
  ['swap 1\u00a0000 usdc for weth', 'swap 1000 USDC WETH'],
  ["swap 1'000 usdc for weth", 'swap 1000 USDC WETH'],
  ['how much is 1,500 usdc worth', 'price USDC 1500'],
  ['tell me when eth is below 2 000', 'watch tell me when WETH is below 2000 USD'],
  // ask: a grouping that reads two ways, in an action now or on a price
  ['swap 1,500 usdc for weth', 'ask'],
  ['swap 1,000 usdc to eth', 'ask'],
  [`send 2,500 usdc to ${A}`, 'ask'],
  ['swap 1 000 usdc for weth', 'ask'],
  ['swap 10 100 usdc for weth', 'ask'],
  ['buy $1,000 of weth', 'ask'],
  ['if weth drops below 1,800 buy $50 of weth', 'ask'],
  // ask: a fraction with no owner ("half weth") is half of the holding or half of one
  ['sell half weth for usdc', 'ask'],
  ['swap 1/2 eth for usdc', 'ask'],
  ['swap a quarter weth for usdc', 'ask'],
  ['unwrap half weth', 'ask'],
  ['swap half my weth for usdc', 'swap 1/2 WETH USDC'],
  ['swap half a weth for usdc', 'swap 0.5 WETH USDC'],
];
