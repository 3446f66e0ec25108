// The metrics port: plain callbacks core calls when something worth counting happens. Core
// knows no metrics library; the server implements this with prom-client. Every callback is
// optional and must be cheap and never throw (it runs on the request path).
import type { EventType, KeyKind } from '@presence/protocol';

/**
 * How an intent came out: `done` and `failed` are final (executed, or ended without
 * executing); `held` waits for a yes (a needs_confirm); `blocked` was refused by the spend
 * policy (at submission, or when a held one was approved).
 */
export type IntentOutcome = 'done' | 'held' | 'blocked' | 'failed';

export type CoreMetrics = {
  /** An event was appended to an account's log (live or a test key's sandbox). */
  eventAppended?(type: EventType, mode: KeyKind): void;
  intent?(outcome: IntentOutcome, mode: KeyKind): void;
  /** Standing intents fired in one beat. */
  standingFired?(count: number): void;
  /** A webhook request got its answer (2xx: delivered), after `durationMs`. */
  webhookDelivery?(outcome: 'delivered' | 'failed', durationMs: number): void;
  /** An endpoint was disabled (its schedule ran out, or its key was revoked). */
  webhookDisabled?(reason: 'failing' | 'key_revoked'): void;
};
