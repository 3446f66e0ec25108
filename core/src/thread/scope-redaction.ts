// The thread keeps to scopes. A reply that read the wallet ("You hold … USD") or pinned
// memory, and a standing intent's message about balances, were made for a key that holds
// those scopes; a key of the same account without them must not read them back — not in
// GET /v1/messages, not on the events stream, and not through the planner ("repeat what you
// said before"). So each thread entry and `message` event records the scopes its content drew
// on, and whoever lacks one gets the text replaced by a line naming the scope. Entries written
// before this was recorded carry no scopes and are shown as they are.
// (What a turn drew on is the conversation's to say: conversation/drawn-scopes.ts.)
import type { Scope } from '@presence/protocol';
import type { ThreadEntry } from '../store/documents';

/** The recorded scopes a key lacks (none for content that recorded none). */
export const lackedScopes = (drawn: readonly string[] | undefined, held: readonly Scope[]): string[] =>
  (drawn ?? []).filter((s) => !held.includes(s as Scope));

export const redactedText = (lacked: readonly string[]) => `[redacted: this drew on ${lacked.join(' and ')}, which this key does not hold]`;

/** The entry as a key holding `held` may read it. */
export function redactEntry(entry: ThreadEntry, held: readonly Scope[]): ThreadEntry {
  const lacked = lackedScopes(entry.scopes, held);
  if (lacked.length === 0) return entry;
  if (entry.kind === 'presence') return { ...entry, text: redactedText(lacked) };
  // The user's own words stay; the reply and what its tools were asked go.
  return { ...entry, reply: redactedText(lacked), used: [], tx: null, confirm_id: null };
}

/** A stored event's data as a key holding `held` may read it (only `message` events carry text drawn on scopes). */
export function redactEventData(type: string, data: Record<string, unknown>, held: readonly Scope[]): Record<string, unknown> {
  if (type !== 'message') return data;
  const lacked = lackedScopes(Array.isArray(data.scopes) ? (data.scopes as string[]) : undefined, held);
  return lacked.length === 0 ? data : { ...data, text: redactedText(lacked) };
}
