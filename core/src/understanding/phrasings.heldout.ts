// Held-out sets (2026-12-03). The first: 86 everyday messages written fresh, as different people
// type them, before any change to the reader they measure — swaps, buys and sells, sends and
// pays, wrapping, dollar and relative amounts, questions, standing intents, watches, policy,
// greetings, and what must not act (what-ifs, the past, negations, jokes in words and emoji).
// Scored first on the reader as it stood; the record is in docs/behaviour.md. `ask`,
// `not_now`, `none` and `unsupported` rows are checked as the corpus's must-ask and
// must-not-act rows are: every one, not 90% of them.
import type { Phrasing } from './phrasings.corpus';

const A = '0x3333333333333333333333333333333333333333';
const C = '0x4444444444444444444444444444444444444444';
const B = '0x5555555555555555555555555555555555555555';
const D = '0x6666666666666666666666666666666666666666';

export const HELD_OUT: Phrasing[] = [
  // swaps, typed every which way
  ['Yo swap 35 usdc into weth real quick 🚀', 'swap 35 USDC WETH'],
  ['SWAP 0.07 WETH FOR DAI', 'swap 0.07 WETH DAI'],
  ['ok so swap 12 dai to usdc then', 'swap 12 DAI USDC'],
  ['mind swapping 18 usdc for weth for me?', 'swap 18 USDC WETH'],
  ['trade forty dai for usdc pls 🙏', 'swap 40 DAI USDC'],
  ["I'd like to exchange 0.4 weth into usdc", 'swap 0.4 WETH USDC'],
  ['can we swap 2.5k usdc to dai', 'swap 2500 USDC DAI'],
  ['Right, swap 75 USDC for wrapped ether.', 'swap 75 USDC WETH'],
  ['sell all my DAI for USDC, closing out the month', 'swap all DAI USDC'],
  ['end of month cleanup: sell all my dai for usdc', 'swap all DAI USDC'],
  ['dump 100 dai for usdc', 'swap 100 DAI USDC'],
  ['sell 0.3 weth for usdc plz', 'swap 0.3 WETH USDC'],
  // buys, by value and by amount
  ['buy me 25 bucks worth of weth', 'buy $25 WETH'],
  ['grab $40 of weth using dai', 'buy $40 WETH with DAI'],
  ['Buy 0.03 WETH with USDC please', 'buy 0.03 WETH with USDC'],
  ['pick up $15 of weth for me', 'buy $15 WETH'],
  ['get 60 dollars of weth with usdc', 'buy $60 WETH with USDC'],
  ['spend 20 bucks on weth', 'buy $20 WETH'],
  ['swap $25 of dai for weth', 'buy $25 WETH with DAI'],
  // sends and pays
  [`send fifteen usdc to ${A} thanks!`, `send 15 USDC ${A}`],
  [`pay ${C} 7.5 dai for the pizza 🍕`, `send 7.5 DAI ${C}`],
  [`transfer 0.02 eth over to ${A}`, `send 0.02 ETH ${A}`],
  [`can you send ${C} 4 usdc`, `send 4 USDC ${C}`],
  [`Please send 250 DAI to ${A}, it's for rent`, `send 250 DAI ${A}`],
  // wrapping
  ['Wrap 0.15 ETH please', 'wrap 0.15'],
  ['Unwrap ALL of my WETH 🙌', 'unwrap all'],
  ['can u wrap a quarter of my eth', 'wrap 1/4'],
  ['convert 0.2 weth back to eth', 'unwrap 0.2'],
  // shares of a balance
  ['swap half of my dai for weth', 'swap 1/2 DAI WETH'],
  ['put a quarter of my usdc into weth', 'swap 1/4 USDC WETH'],
  ['move all of my usdc into dai', 'swap all USDC DAI'],
  ['swap a third of my weth for usdc', 'swap 1/3 WETH USDC'],
  // must ask: acting would mean guessing
  ['just sell off my weth', 'ask'],
  ['sell 0.08 weth', 'ask'],
  ['send 12 dai to my landlord', 'ask'],
  [`shoot some dai over to ${C}`, 'ask'],
  ['unwrap some weth', 'ask'],
  ['swap a tiny bit of dai into weth', 'ask'],
  ['swap some dai to usdc', 'ask'],
  ['swap 10 or 20 usdc for weth', 'ask'],
  ['buy $10 of shib', 'ask'],
  ['i want some weth', 'ask'],
  ['Trade DAI into WETH pls', 'ask'],
  ['swap 20 for weth', 'ask'],
  ['buy a little weth', 'ask'],
  ['swap 3 usdc for weth and sell 0.1 weth for dai', 'ask'],
  // questions
  ['yo how much dai have i got', 'balance DAI'],
  ['whats in the wallet rn?', 'balance all'],
  ['Show Me What I Own', 'balance all'],
  ['where is weth trading today', 'price WETH'],
  ['how much is eth worth today?', 'price ETH'],
  ['what would 3 weth get me in usdc', 'price WETH 3 in USDC'],
  ['is SCAM legit?', 'safety SCAM'],
  ['is dai a rug?', 'safety DAI'],
  ['how much liquidity does the weth usdc pool have', 'pool WETH-USDC'],
  ['list the pools you support', 'pools'],
  ["what's my daily limit", 'policy'],
  ['how much am i allowed to spend', 'policy'],
  ["what's my wallet address?", 'address'],
  ['anything waiting for me to approve?', 'pending'],
  // standing intents, watches and the policy
  ['give me a shout if eth climbs past 4k', 'watch tell me when WETH is above 4000 USD'],
  ['let me know once weth dips under 2100', 'watch tell me when WETH is below 2100 USD'],
  ['if eth drops below 1900, buy $40 of weth', 'watch if WETH drops below 1900 USD buy $40 of WETH'],
  ['when eth drops below 2500 tell me', 'watch tell me when WETH is below 2500 USD'],
  ['every evening at 7 tell me my balance', 'watch every day at 19:00 tell me my balance'],
  ['every friday buy 10 usdc of weth', 'unsupported'],
  ['which alerts have I got running?', 'watching'],
  ['turn off the weth price alert', 'stop WETH'],
  ['get rid of all my alerts', 'stop all'],
  ['no more daily balance messages pls', 'stop daily'],
  ['raise my spending limit to 500', 'policy change'],
  // greetings and thanks
  ['hiya 👋', 'none'],
  ['cheers mate, that was quick', 'none'],
  ['awesome thank u!!', 'none'],
  // must not act: jokes in emoji, what-ifs, the past, negations, later
  ['swap 10 usdc for weth 😂', 'not_now'],
  ['🤣 buy 20 usdc of weth', 'not_now'],
  ['swap 5 dai for weth 💀', 'not_now'],
  ['buy 20 usdc of weth 🤪', 'not_now'],
  ['send 5 dai to 0x1111111111111111111111111111111111111111 😜', 'not_now'],
  ['sell all my dai at the end of the month', 'not_now'],
  ['what if I swapped 10 usdc for weth?', 'not_now'],
  ['I swapped 10 usdc for weth last night lol', 'not_now'],
  ["pls don't buy any weth", 'not_now'],
  ['Do NOT send anything to anyone', 'not_now'],
  ['should i dump my dai or hold?', 'not_now'],
  ['i was thinking about swapping 20 usdc for weth', 'none'],
  ['buy $30 of weth haha just testing', 'not_now'],
  ['my dad sold all his eth in 2021 😭', 'none'],
];

/**
 * A second held-out batch (44 rows), written after the fixes the first one led to and scored
 * before any further change: 41 of 44 (93.2%) — 38 of its first 40, and 3 of the 4 written to
 * replace rows found to repeat the corpus. The misses acted on nothing: "… it's for lunch" read
 * as a time, "a smidge of weth" and "a tenth of my eth" not understood. Fixed in general form: a
 * meal paid for is a purpose, "a <little word> of" is vague, and any ordinal is a share.
 */
export const HELD_OUT_2: Phrasing[] = [
  ['hey could u flip 30 dai into weth', 'swap 30 DAI WETH'],
  ['Swap Fifty USDC To WETH Please', 'swap 50 USDC WETH'],
  ['i need 0.01 weth, pay with dai', 'buy 0.01 WETH with DAI'],
  ['exchange 2 weth for usdc, cheers', 'swap 2 WETH USDC'],
  ['can we trade 0.5 weth for dai?', 'swap 0.5 WETH DAI'],
  ['sell off 0.4 weth for usdc', 'swap 0.4 WETH USDC'],
  ['buy 50 dai of weth', 'swap 50 DAI WETH'],
  ['put 100 usdc into weth pls', 'swap 100 USDC WETH'],
  ['convert 3/4 of my usdc to dai', 'swap 3/4 USDC DAI'],
  [`send over 2 usdc to ${B} 🙏`, `send 2 USDC ${B}`],
  [`pay ${B} twelve usdc, it's for lunch`, `send 12 USDC ${B}`],
  ['could you wrap a tenth of my eth', 'wrap 1/10'],
  ['unwrap 0.25 weth pls and thanks', 'unwrap 0.25'],
  ['sell 1 weth for usdc 🤣🤣', 'not_now'],
  [`😂😂 send 50 usdc to ${B}`, 'not_now'],
  ['swap 20 usdc for weth, tidying up the portfolio', 'swap 20 USDC WETH'],
  ['swap 20 usdc for weth at month end', 'not_now'],
  ['swap 5 or 6 dai for usdc', 'ask'],
  ['buy 20-30 dollars of weth', 'ask'],
  ['swap 15 into dai', 'ask'],
  ['sell everything', 'ask'],
  [`send a few dai to ${B}`, 'ask'],
  ['swap a smidge of weth for usdc', 'ask'],
  ['buy some shib with 10 usdc', 'ask'],
  ['how much weth am i holding', 'balance WETH'],
  ['whats my eth balance looking like', 'balance ETH'],
  ["where's weth at today", 'price WETH'],
  ['what would 0.5 weth fetch in dai', 'price WETH 0.5 in DAI'],
  ['SCAM looks sus. is it a rug pull?', 'safety SCAM'],
  ['how much liquidity is in usdc-dai', 'pool USDC-DAI'],
  ['how much am i permitted to spend today', 'policy'],
  ['is anything waiting for me to confirm', 'pending'],
  ['tell me when weth goes over 3500', 'watch tell me when WETH is above 3500 USD'],
  ['if weth falls under 2000 swap 30 usdc for weth', 'watch if WETH drops below 2000 USD swap 30 USDC for WETH'],
  ['stop the weth alert pls', 'stop WETH'],
  ['what are my active alerts', 'watching'],
  ['yo thanks a ton', 'none'],
  ['what if i bought $50 of weth', 'not_now'],
  ['we sold 0.2 weth for usdc this morning', 'not_now'],
  ['never ever buy scam', 'not_now'],
  ['haha imagine swapping all my dai for weth', 'not_now'],
  ['my sister wants me to send her 5 usdc', 'none'],
  ['swap 10 usdc for weth 😅', 'not_now'],
  [`send 20 usdc to ${B} end of week`, 'not_now'],
];

/**
 * A third held-out batch (42 rows, other personas: formal, terse, non-native), written after the
 * second batch's fixes and scored before any further change: 40 of 42 (95.2%; 6 rows found to
 * repeat the corpus were replaced first, and the replacements scored as written). Both misses
 * were questions not understood ("what's left of my daily budget", "where do i send funds to top
 * up"); fixed in general form (what is left of a limit; where money goes in).
 */
export const HELD_OUT_3: Phrasing[] = [
  ['Please could you exchange 45 USDC to DAI.', 'swap 45 USDC DAI'],
  ['yo ada flip .3 weth to dai', 'swap 0.3 WETH DAI'],
  ['i want to change 60 dai for weth please', 'swap 60 DAI WETH'],
  ['Swap 12.5 DAI → USDC', 'swap 12.5 DAI USDC'],
  ['ok buy 35$ of weth', 'buy $35 WETH'],
  ['purchase 0.004 weth using usdc', 'buy 0.004 WETH with USDC'],
  ['buy $75 worth of weth w/ dai', 'buy $75 WETH with DAI'],
  ['sell 40% of my weth for usdc', 'swap 40/100 WETH USDC'],
  [`send 3.5 usdc to ${D} pls, for the coffee`, `send 3.5 USDC ${D}`],
  [`give ${D} 9 dai`, `send 9 DAI ${D}`],
  ['unwrap .1 weth', 'unwrap 0.1'],
  ['pls wrap 0.35 ETH for me ta', 'wrap 0.35'],
  ['unwrap half of my weth please', 'unwrap 1/2'],
  ['send 5 usdc to alice', 'ask'],
  ['grab a couple of weth', 'ask'],
  ['trade all of my eth into dai', 'ask'],
  ['swap 10 usdc for weth or maybe dai', 'none'],
  ['transfer 8 dai please', 'ask'],
  ['swap 10 pepe for usdc', 'ask'],
  ['swap 20 usdc for 0.01 weth', 'ask'],
  ['how much usdc do i own', 'balance USDC'],
  ['balances pls 🙏', 'balance all'],
  ['whats 1 weth worth in dai', 'price WETH 1 in DAI'],
  ['current eth price pls', 'price ETH'],
  ['is the dai token safe to hold', 'safety DAI'],
  ['weth dai pool depth', 'pool WETH-DAI'],
  ['what markets do you support', 'pools'],
  ["what's left of my daily budget", 'policy'],
  ['where do i send funds to top up', 'address'],
  ['notify me when eth hits 5000', 'ask'],
  ['alert me if weth falls below 1700', 'watch tell me when WETH is below 1700 USD'],
  ['if eth goes over 4000 sell 0.1 weth for usdc', 'watch if WETH rises above 4000 USD swap 0.1 WETH for USDC'],
  ['every day at 6pm tell me my balance', 'watch every day at 18:00 tell me my balance'],
  ['stop all my alerts please', 'stop all'],
  ['what price alerts are running', 'watching'],
  ['lower my daily cap to 100', 'policy change'],
  ['good evening presence', 'none'],
  ['i might buy some weth later', 'none'],
  ['did i already swap 10 usdc for weth?', 'none'],
  [`sending 5 usdc to ${D} was a mistake`, 'not_now'],
  ['swap 10 usdc for weth hehe', 'not_now'],
  ['rofl sell 1 weth for dai', 'not_now'],
];
