// How option values are read, for every command that takes a list or a count: the same words
// and the same refusals everywhere (Commander prints an InvalidArgumentError as a usage error).
import { InvalidArgumentError } from 'commander';

/** `a, b,c` → ['a', 'b', 'c']: trimmed, empties dropped. */
export const commaList = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** A whole number, or a usage error that says what was wanted (`what`: 'a whole number of seconds'). */
export const wholeNumber =
  (what = 'a whole number') =>
  (value: string) => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`expected ${what}`);
    return Number(value);
  };
