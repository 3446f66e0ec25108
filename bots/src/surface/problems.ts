// What the user is told when Presence could not answer. The server's problem types are the
// contract; the bots add no rules of their own, only words.
import { PresenceApiError, PresenceNetworkError, PresenceProtocolError } from '@presence/client';

export const UNAVAILABLE = 'Presence is unavailable right now, try again in a moment.';

/** Presence could not be reached, or answered that it cannot serve right now. */
export const isUnavailable = (e: unknown): boolean =>
  e instanceof PresenceNetworkError || (e instanceof PresenceApiError && e.status >= 500);

/** The key no longer works (revoked, or its rotation grace ended): the link is dead. */
export const isRevoked = (e: unknown): e is PresenceApiError => e instanceof PresenceApiError && e.status === 401;

export const problemType = (e: unknown): string | undefined => (e instanceof PresenceApiError ? e.type : undefined);

/** One sentence for the chat; never includes secrets (problem details carry none). */
export function describeError(e: unknown): string {
  if (isUnavailable(e)) return UNAVAILABLE;
  if (e instanceof PresenceApiError) {
    if (e.status === 429) return `Presence is busy; try again in ${e.retryAfter ?? 'a few'} seconds.`;
    if (e.type === 'scope') return `This link is not allowed to do that: ${e.detail}`;
    return `Presence could not do that: ${e.detail}`;
  }
  if (e instanceof PresenceProtocolError)
    return 'Presence answered in a way this bot does not understand (is the bot older than the server?).';
  return 'Something went wrong on my side; try again in a moment.';
}
