// The one history budget, as a table: which turns a planner sees, clipped how.
import { describe, expect, it } from 'vitest';
import { boundHistory, HISTORY_BUDGET_CHARS, HISTORY_MESSAGE_CHARS, HISTORY_TURNS, type HistoryTurn } from './history-budget';

const turn = (i: number, size = 10): HistoryTurn => ({ user: `u${i}`.padEnd(size, 'u'), reply: `r${i}`.padEnd(size, 'r') });
const ids = (turns: HistoryTurn[]) => turns.map((t) => t.user.slice(0, 3).replace(/u+$/, ''));

describe('boundHistory', () => {
  it.each<[string, HistoryTurn[], string[]]>([
    ['nothing', [], []],
    ['a few short turns, all of them, oldest first', [turn(1), turn(2), turn(3)], ['u1', 'u2', 'u3']],
    [
      `at most the last ${HISTORY_TURNS}`,
      Array.from({ length: HISTORY_TURNS + 3 }, (_, i) => turn(i)),
      Array.from({ length: HISTORY_TURNS }, (_, k) => `u${k + 3}`),
    ],
    // 1,300 + 1,300 characters a turn: two fit in 6,000, three do not.
    ['long turns: the newest that fit', [turn(1, 1_300), turn(2, 1_300), turn(3, 1_300)], ['u2', 'u3']],
    // 3,000 left after the newest; the next (clipped to 1,501 + 1,501) does not fit, and the
    // walk back stops there: the short turn before it is not skipped over into.
    ['the walk back stops at the first that does not fit', [turn(1), turn(2, 1_501), turn(3, 1_500)], ['u3']],
  ])('%s', (_name, turns, expected) => {
    const seen = boundHistory(turns);
    expect(ids(seen)).toEqual(expected);
    expect(seen.reduce((n, t) => n + t.user.length + t.reply.length, 0)).toBeLessThanOrEqual(HISTORY_BUDGET_CHARS);
  });

  it(`clips a message over ${HISTORY_MESSAGE_CHARS} characters, marking the cut`, () => {
    const [t] = boundHistory([{ user: 'x'.repeat(HISTORY_MESSAGE_CHARS + 500), reply: 'short' }]);
    expect(t).toEqual({ user: `${'x'.repeat(HISTORY_MESSAGE_CHARS)}…`, reply: 'short' });
  });
});
