// Requests hedged by a condition, a later time, an alternative or someone else's wish: none
// may be acted on now, whatever else the message reads as. Kept apart from the corpus, as
// they test what the reader must not drop ("swap 10 usdc for weth, if eth is cheap") rather
// than how people word a request. Scored with the corpus's must-not-act rows. `not_now` rows
// are hedged after the request, and the reply says so and gives the words that would act now.
import type { Phrasing } from './phrasings.corpus';

const A = '0x1111111111111111111111111111111111111111';

export const HEDGED: Phrasing[] = [
  ['swap 10 usdc for weth, if eth is cheap', 'none'],
  ['sell 1 weth for usdc, not now', 'not_now'],
  ['buy $20 of weth tomorrow', 'not_now'],
  ['swap 10 usdc for weth unless the price jumps', 'not_now'],
  ['sell 0.1 weth for usdc but only after 5pm', 'not_now'],
  [`send 5 usdc to ${A} next week`, 'not_now'],
  ['swap 10 usdc for weth. if that fails, dai', 'none'],
  ['I was going to swap 10 usdc for weth', 'none'],
  ['my friend wants to buy $20 of weth', 'none'],
  ['swap 10 usdc for weth or dai', 'none'],
  ['should weth fall below 1000, sell 1 weth for usdc? no idea', 'none'],
];
