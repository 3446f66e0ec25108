// Which memory keys a message mentions: listed token symbols, pairs of them, addresses.
import type { TokenList } from '../chain/token-list';

export function mentionedKeys(text: string, list: TokenList | null): string[] {
  const keys = new Set<string>();
  const symbols = new Map((list?.tokens ?? []).map((t) => [t.symbol.toUpperCase(), t.symbol]));
  for (const m of text.matchAll(/\b([A-Za-z][A-Za-z0-9]{1,15})[-/]([A-Za-z][A-Za-z0-9]{1,15})\b/g)) {
    const a = symbols.get((m[1] as string).toUpperCase());
    const b = symbols.get((m[2] as string).toUpperCase());
    if (a && b) keys.add(`pair:${a}-${b}`);
  }
  for (const m of text.matchAll(/\b([A-Za-z][A-Za-z0-9]{1,15})\b/g)) {
    const s = symbols.get((m[1] as string).toUpperCase());
    if (s) keys.add(`token:${s}`);
  }
  for (const m of text.matchAll(/\b(0x[0-9a-fA-F]{40})\b/g)) keys.add(`addr:${m[1]}`);
  return [...keys];
}
