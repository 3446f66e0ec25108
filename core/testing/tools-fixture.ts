// For tests: the presence tools as a turn declares them (names, descriptions, real argument
// schemas) for a key with `scopes`. Nothing behind them is wired: running one is the test's
// business (tool-scopes.test.ts only reads them; local-planner.test.ts supplies results).

import type { Scope } from '@presence/protocol';
import type { ToolDef } from '../src/conversation/planner-port';
import { createPresenceTools, newTurnEffects } from '../src/conversation/presence-tools';
import type { Principal } from '../src/keys/key-service';

export function declaredTools(scopes: readonly Scope[], allowAct: boolean): ToolDef[] {
  const principal: Principal = { keyId: 'key_x', accountId: 'acct', kind: 'live', scopes, validUntil: null, secretHash: 'h' };
  return createPresenceTools({
    principal,
    allowAct,
    wallet: null,
    memory: {} as never,
    standing: {} as never,
    effects: newTurnEffects(),
    on: { tool() {}, needsConfirm() {} },
    idempotencyKey: null,
    turnContext: {},
  });
}
