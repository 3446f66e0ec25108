// One sentence a person can act on, for anything the SDK or the linking code throws.
import { PresenceApiError, PresenceNetworkError, PresenceProtocolError } from '@presence/client';
import { LinkCheckError, LinkInputError } from './link';

export type ErrorContext = 'link' | 'redeem' | 'general';

export function describeError(e: unknown, context: ErrorContext = 'general'): string {
  if (e instanceof LinkCheckError)
    return `The code was used and a key made, but checking it failed: ${describeError(e.cause)} Press Save again to retry.`;
  if (e instanceof LinkInputError) return e.message;
  if (e instanceof PresenceNetworkError) {
    if (e.code === 'timeout') return 'The server did not answer in time. Check the address and that the server is running, then try again.';
    if (e.code === 'interrupted') return 'The connection to the server broke off. Try again.';
    return 'Could not reach the server. Check the address and that the Presence server is running.';
  }
  if (e instanceof PresenceProtocolError)
    return 'The server answered, but not like a Presence server this extension understands. Check the address.';
  if (e instanceof PresenceApiError) {
    switch (e.type) {
      case 'not_found':
        if (context === 'redeem') return 'That link code is unknown, already used or expired. Make a new one with `presence link`.';
        return e.detail || 'Not found.';
      case 'auth':
        return context === 'link'
          ? 'The server did not accept this key.'
          : 'The server no longer accepts this extension’s key. Link it again in Options.';
      case 'scope':
        return `This extension’s key is not allowed to do that: ${e.detail}`;
      case 'rate_limited':
        return `Too many requests; try again${e.retryAfter ? ` in ${e.retryAfter} s` : ' shortly'}.`;
      case 'chain_unavailable':
        return 'The server cannot reach its chain right now. Try again shortly.';
      case 'confirm_expired':
        return 'This request expired before it was answered; nothing was sent.';
      case 'confirm_resolved':
        return 'This request was already answered elsewhere.';
      case 'policy_block':
        return `Blocked by the spend policy: ${e.detail}`;
      default:
        return e.detail || e.title;
    }
  }
  if (e instanceof Error && e.message) return e.message;
  return 'Something went wrong.';
}
