// The parts of core a server may run without (passkeys, surfaces, webhooks, the wallet without
// a chain): a route reaches one through `served`, which answers the problem saying it is not
// kept here instead of failing on a null.
import { PresenceError } from '@presence/core';
import type { ProblemType } from '@presence/protocol';

export function served<T>(part: T | null | undefined, type: ProblemType, detail: string): T {
  if (!part) throw new PresenceError(type, detail);
  return part;
}
