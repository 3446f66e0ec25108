// Messages between the popup and the background worker (chrome.runtime messaging).
import type { PresenceEvent } from '@presence/client';

/** Worker → pages: an event just arrived on the stream (the popup refreshes what it shows). */
export type EventBroadcast = { type: 'presence:event'; event: PresenceEvent };
/** Pages → worker: something changed (an answer was given); recount the badge now. */
export type RefreshRequest = { type: 'presence:refresh' };
export type RuntimeMessage = EventBroadcast | RefreshRequest;

export function isRuntimeMessage(m: unknown): m is RuntimeMessage {
  const type = (m as { type?: unknown } | null)?.type;
  return type === 'presence:event' || type === 'presence:refresh';
}

/** Fire and forget: nobody listening (no popup open) is not an error. */
export function sendRuntimeMessage(message: RuntimeMessage): void {
  try {
    const p = chrome.runtime.sendMessage(message) as Promise<unknown> | undefined;
    p?.catch(() => undefined);
  } catch {
    // the extension context is gone (reloaded): nothing to tell
  }
}
