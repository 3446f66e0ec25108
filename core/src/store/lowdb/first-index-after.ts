// Binary search over entries kept in ascending id order (events, thread entries).

/** Index of the first entry whose id is greater than `afterId`. */
export function firstIndexAfter(entries: readonly { id: number }[], afterId: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((entries[mid] as { id: number }).id <= afterId) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
