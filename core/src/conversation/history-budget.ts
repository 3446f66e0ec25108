// How much of the thread a planner sees: the last few turns, each message clipped, all of
// them within a character budget (≈ 1,500 tokens at 4 characters a token). The one budget,
// applied once by the conversation before any planner runs.

export const HISTORY_TURNS = 6;
/** Characters of history a planner sees at most, newest turns kept first. */
export const HISTORY_BUDGET_CHARS = 6_000;
/** One message longer than this is clipped (with "…"), so one long turn does not crowd out the rest. */
export const HISTORY_MESSAGE_CHARS = 1_500;
/**
 * Thread entries read to find those turns: the presence's own speech (alerts, resume notices)
 * sits between turns and is skipped, so a few more entries than turns are read.
 */
export const HISTORY_LOOKBACK_ENTRIES = 10;

export type HistoryTurn = { user: string; reply: string };

const clip = (s: string) => (s.length > HISTORY_MESSAGE_CHARS ? `${s.slice(0, HISTORY_MESSAGE_CHARS)}…` : s);

/** The last turns (at most HISTORY_TURNS) within the budget, newest kept first, oldest first in the result; other fields ride along. */
export function boundHistory<T extends HistoryTurn>(turns: readonly T[]): T[] {
  const out: T[] = [];
  let left = HISTORY_BUDGET_CHARS;
  for (const t of turns.slice(-HISTORY_TURNS).reverse()) {
    const turn = { ...t, user: clip(t.user), reply: clip(t.reply) };
    left -= turn.user.length + turn.reply.length;
    if (left < 0) break;
    out.unshift(turn);
  }
  return out;
}
