// Back-off for work that is retried on demand (a compaction of links.jsonl asked for by each
// change past the line): after a failure the next try waits, the wait doubling from `firstMs`
// up to `maxMs`, so a disk that refuses (full, read-only, a path taken) is not hit by every
// change. A failure episode runs from the first failure to the next success; the caller logs
// its first failure and its end, which this says, and nothing between. Time is `now`'s.
export type Backoff = ReturnType<typeof createBackoff>;

export function createBackoff({ now, firstMs, maxMs }: { now: () => number; firstMs: number; maxMs: number }) {
  /** The episode under way: when it began, tries failed in it, the current wait, and when the next try may run. */
  let episode: { since: number; failures: number; waitMs: number; retryAt: number } | null = null;
  return {
    /** Ms until a try may run (0: now). */
    left: (): number => (episode ? Math.max(0, episode.retryAt - now()) : 0),
    /** Records a failure; answers whether it began an episode (the one to log). */
    failed(): boolean {
      const t = now();
      if (!episode) {
        episode = { since: t, failures: 1, waitMs: firstMs, retryAt: t + firstMs };
        return true;
      }
      episode.failures += 1;
      episode.waitMs = Math.min(2 * episode.waitMs, maxMs);
      episode.retryAt = t + episode.waitMs;
      return false;
    },
    /** Records a success; answers the episode it ended (the one to log), or null when there was none. */
    succeeded(): { since: number; failures: number } | null {
      const ended = episode;
      episode = null;
      return ended && { since: ended.since, failures: ended.failures };
    },
  };
}
