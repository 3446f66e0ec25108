// When a daily standing intent is next due: its `HH:MM` (UTC) today, or tomorrow once past.

const DAY_MS = 86_400_000;

export function nextDailyAt(at: string, now: number): number {
  const [h, m] = at.split(':').map(Number) as [number, number];
  const today = Math.floor(now / DAY_MS) * DAY_MS + (h * 60 + m) * 60_000;
  return today > now ? today : today + DAY_MS;
}
