// Splitting text over a platform's per-message limit (Telegram 4096, Discord 2000): cut at
// the last paragraph break, else line break, else space in the second half of the window,
// else hard at the limit. Surrogate pairs are never cut in half; nothing but the whitespace
// at a cut is dropped.

export function splitMessage(text: string, limit: number): string[] {
  if (limit < 2) throw new RangeError('limit must be at least 2');
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const window = rest.slice(0, limit);
    let cut = -1;
    for (const sep of ['\n\n', '\n', ' ']) {
      const at = window.lastIndexOf(sep);
      if (at >= limit / 2) {
        cut = at;
        break;
      }
    }
    let next: number;
    if (cut === -1) {
      cut = limit;
      const code = rest.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut--; // a high surrogate stays with its low half
      next = cut;
    } else {
      next = cut;
      while (next < rest.length && /\s/.test(rest[next] as string)) next++;
    }
    parts.push(rest.slice(0, cut));
    rest = rest.slice(next);
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}
