// Blind phrasings, fifth round (batch M): 60 messages as chat-app regulars type them, written
// (intent beside each) before the reader or the corpus was opened, then scored as they stood;
// the expected readings follow the documented rules (a misspelt verb is offered back, a sale
// with nothing to receive is asked back). See phrasings.blind.ts.
import type { Phrasing } from './phrasings.corpus';

const A = '0x1111111111111111111111111111111111111111';
const C = '0x2222222222222222222222222222222222222222';

/** Batch M: chat-app regulars (lower case, "pls", "rn", "u", emoji, a typo or two). */
export const BLIND_M: Phrasing[] = [
  // questions
  ['hey whats my balance rn', 'balance all'],
  ['how much eth do i have??', 'balance ETH'],
  ['bal pls', 'balance all'],
  ['do i still have any usdc left', 'balance USDC'],
  ['show me my wallet 👀', 'balance all'],
  ["what's in my wallet", 'balance all'],
  ['how much weth have i got', 'balance WETH'],
  ['check my usdc balance pls', 'balance USDC'],
  ['eth price?', 'price ETH'],
  ['whats eth at rn', 'price ETH'],
  ['how much is 1 eth in usdc', 'price ETH 1 in USDC'],
  ['price of weth pls', 'price WETH'],
  ["wat's the eth price today", 'price ETH'],
  ['is eth up or down today', 'price ETH'],
  ['how much would i get for 0.5 eth', 'price ETH 0.5'],
  ["what's my spending limit", 'policy'],
  ['what are my limits rn', 'policy'],
  ['anything pending?', 'pending'],
  ['do i have anything waiting for approval', 'pending'],
  ['show my pending stuff', 'pending'],
  // actions
  ['swap 0.1 eth to usdc pls', 'swap 0.1 ETH USDC'],
  ['can u swap 50 usdc for eth', 'swap 50 USDC ETH'],
  ['sell 0.2 eth for usdc', 'swap 0.2 ETH USDC'],
  ['convert 25 usdc into eth', 'swap 25 USDC ETH'],
  ['trade my 10 usdc for eth', 'swap 10 USDC ETH'],
  ['i want to swap .5 eth to usdc 🙏', 'swap 0.5 ETH USDC'],
  ['swap half an eth for usdc', 'swap 0.5 ETH USDC'],
  ['exchange 0.01 eth for usdc plz', 'swap 0.01 ETH USDC'],
  [`send 0.01 eth to ${A}`, `send 0.01 ETH ${A}`],
  [`pls send 5 usdc to ${C}`, `send 5 USDC ${C}`],
  [`transfer 20 usdc to ${A}`, `send 20 USDC ${A}`],
  [`can u send 0.1 eth to ${C} thx`, `send 0.1 ETH ${C}`],
  [`pay ${A} 15 usdc`, `send 15 USDC ${A}`],
  [`yo send 1 eth to ${C} asap`, `send 1 ETH ${C}`],
  ['wrap 0.1 eth', 'wrap 0.1'],
  ['unwrap my 0.05 weth', 'unwrap 0.05'],
  ['pls wrap .2 eth into weth', 'wrap 0.2'],
  ['turn 0.3 eth into weth', 'wrap 0.3'],
  ['unwrap 0.1 weth back to eth pls', 'unwrap 0.1'],
  // standing intents
  ['if eth < 1800 swap 100 usdc to eth', 'watch if WETH drops below 1800 USD swap 100 USDC for ETH'],
  ['if eth falls below 2k pls swap 50 usdc for eth', 'watch if WETH drops below 2000 USD swap 50 USDC for ETH'],
  // ask: a misspelt verb is offered back corrected (not done); no amount, no side, no token to receive, no address
  ['swp 0.05 eth -> usdc', 'none'],
  [`snd 3 usdc to ${A}`, 'none'],
  ['swap 1,000 usdc to eth', 'ask'],
  ['send bob 5 usdc', 'ask'],
  ['if eth drops below 2000 buy 0.1 eth with usdc', 'ask'],
  ['when eth goes above 4000 sell 0.5 eth', 'ask'],
  ['swap 50 usdc to eth if price dips under 2500', 'ask'],
  ['when eth hits 5k sell 0.2 eth for usdc', 'ask'],
  ['sell 1 eth when eth > 3500', 'ask'],
  ['whenever eth drops below 2000 buy some', 'ask'],
  // none: memory is the planner's, not an action
  ['remember i like to keep 0.1 eth for gas', 'none'],
  [`pls remember my friend alice is ${'0x4444444444444444444444444444444444444444'}`, 'none'],
  ['remember that i prefer usdc', 'none'],
  ["can u remember i'm saving for a car", 'none'],
  // not_now: negated, put off, a joke, a hypothesis, a later time
  ["don't swap anything yet", 'not_now'],
  [`maybe later send 5 usdc to ${C}`, 'not_now'],
  ['lol imagine if i swapped all my eth for usdc', 'not_now'],
  [`what would happen if i sent 1 eth to ${A}`, 'not_now'],
  ['swap 0.1 eth to usdc tmrw', 'not_now'],
];
