// What a turn's reply drew on, recorded on its thread entry so keys lacking it read it
// redacted (thread/scope-redaction.ts): the scopes of the tools it used, memory:read when
// the planner was shown pinned memory, and the scopes of the history turns it was shown (a
// reply may repeat them: "repeat what you said before"). `talk` is held by every key that
// reads the thread.
import type { Scope } from '@presence/protocol';
import type { UsedCall } from '../store/documents';
import { TOOL_SCOPES } from './tool-scopes';

export function drawnScopes(used: readonly UsedCall[], sawPinned: boolean, sawHistory: readonly Scope[] = []): Scope[] {
  const out = new Set<Scope>([...(sawPinned ? (['memory:read'] as const) : []), ...sawHistory]);
  for (const u of used) {
    const gate = (TOOL_SCOPES as Record<string, { needs: readonly { scopes: readonly Scope[] }[] }>)[u.tool];
    for (const s of gate?.needs[0]?.scopes ?? []) out.add(s);
  }
  return [...out].filter((s) => s !== 'talk').sort();
}
