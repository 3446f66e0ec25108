// Numbers in words read exactly as compromise (a well-kept NLP library, kept here as the
// oracle) reads them, and shorthand and separators as written; a run compromise can only
// round ("two thirds") or that is no number is left as words.
import nlp from 'compromise';
import { describe, expect, it } from 'vitest';
import { numbersAsDigits, wordsToDigits } from './number-words';

const RUNS = [
  'zero',
  'one',
  'seven',
  'eleven',
  'nineteen',
  'twenty',
  'twenty five',
  'twenty-five',
  'ninety nine',
  'a hundred',
  'one hundred',
  'one hundred and fifty',
  'two hundred five',
  'fifteen hundred',
  'a thousand',
  'two thousand',
  'two thousand five hundred',
  'twelve thousand three hundred and forty five',
  'a million',
  'three million',
  'one and a half',
  'two and a half',
  'twelve and a half',
  'three point five',
  'zero point five',
  'one point two five',
  'ten point zero one',
];

const byCompromise = (run: string) => {
  const found = nlp(run).numbers().get() as number[];
  return found.length === 1 ? String(found[0]) : null;
};

describe('number words', () => {
  it.each(RUNS)('"%s" reads as compromise reads it', (run) => {
    expect(wordsToDigits(run)).toBe(byCompromise(run));
  });

  it.each(['five twenty', 'five five', 'point', 'a', 'half', 'twenty point', 'one hundred point twelve'])('"%s" is no number', (run) => {
    expect(wordsToDigits(run)).toBeNull();
  });

  it.each([
    ['swap twenty usdc for weth', 'swap 20 usdc for weth'],
    ['swap 1k usdc for weth', 'swap 1000 usdc for weth'],
    ['swap 1.5k dai to usdc', 'swap 1500 dai to usdc'],
    ['swap 2m usdc', 'swap 2000000 usdc'],
    ['swap .5 weth for usdc', 'swap 0.5 weth for usdc'],
    ['swap 1,000 usdc', 'swap 1000 usdc'],
    ['swap 1,000,000 usdc', 'swap 1000000 usdc'],
    ['swap 0,5 weth', 'swap 0.5 weth'],
    ['swap 1,5 weth', 'swap 1.5 weth'],
    ['swap 0,500 weth', 'swap 0.500 weth'],
    ['swap 1 000 usdc', 'swap 1000 usdc'],
    ['swap 1,5k usdc', 'swap 1500 usdc'],
    ['swap 0,25k dai', 'swap 250 dai'],
    ['swap 2,75m usdc', 'swap 2750000 usdc'],
    ['swap 1,500k usdc', 'swap 1500000 usdc'],
    ['swap point one eth', 'swap 0.1 eth'],
    ['swap point 25 eth', 'swap 0.25 eth'],
    ['swap one point five eth', 'swap 1.5 eth'],
    ['tell me at 1,2,3,4', 'tell me at 1,2,3,4'],
    ['wrap half an eth', 'wrap 0.5 eth'],
    ['sell two thirds of my weth', 'sell 2 thirds of my weth'],
    ['every day at 09:00', 'every day at 09:00'],
  ])('"%s" → "%s"', (text, digits) => {
    expect(numbersAsDigits(text)).toBe(digits);
  });

  it.each([
    ['swap 1,500 usdc', ['1,500']],
    ['swap 1 000 usdc', ['1 000']],
    ['swap 1,500.25 usdc', []],
    ['swap 1,000,000 usdc', []],
    ['swap 0,5 weth', []],
    ['swap 1,5k usdc', []],
    ['swap 1,500k usdc', ['1,500k']],
    ['every day at 09:00', []],
  ])('"%s": a grouping read two ways is reported (%j)', (text, unsure) => {
    const seen: string[] = [];
    numbersAsDigits(text, seen);
    expect(seen).toEqual(unsure);
  });
});
