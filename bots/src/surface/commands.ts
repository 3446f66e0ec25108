// "/name@bot args" → { name, target, args }. Both platforms accept commands typed as text
// (Discord's slash commands arrive as interactions and skip this).
export type ParsedCommand = { name: string; target: string | null; args: string };

const COMMAND = /^\/([A-Za-z0-9_]{1,32})(?:@([A-Za-z0-9_]+))?(?:\s+([\s\S]*))?$/;

export function parseCommand(text: string): ParsedCommand | null {
  const m = COMMAND.exec(text.trim());
  if (!m) return null;
  return { name: (m[1] as string).toLowerCase(), target: m[2] ?? null, args: (m[3] ?? '').trim() };
}
