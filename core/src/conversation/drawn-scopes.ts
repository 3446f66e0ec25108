// What a turn's reply drew on, recorded on its thread entry so keys lacking it read it
// redacted (thread/scope-redaction.ts): the scopes of the tools it used, and memory:read when
// the planner was shown pinned memory. `talk` is held by every key that reads the thread.
import type { Scope } from '@presence/protocol';
import type { UsedCall } from '../store/documents';
import { TOOL_SCOPES } from './tool-scopes';

export function drawnScopes(used: readonly UsedCall[], sawPinned: boolean): Scope[] {
  const out = new Set<Scope>(sawPinned ? ['memory:read'] : []);
  for (const u of used) {
    const gate = (TOOL_SCOPES as Record<string, { needs: readonly { scopes: readonly Scope[] }[] }>)[u.tool];
    for (const s of gate?.needs[0]?.scopes ?? []) out.add(s);
  }
  return [...out].filter((s) => s !== 'talk').sort();
}
