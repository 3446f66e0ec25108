// Every failure becomes one line on stderr, `error: <type> — <detail>`; the stack only
// with PRESENCE_DEBUG=1. People read the line, scripts read the exit code.
import { PresenceApiError, PresenceNetworkError, PresenceProtocolError } from '@presence/client';
import { CliError } from './cli-error';

export function errorLine(err: unknown): string {
  if (err instanceof PresenceApiError) return `error: ${err.type} — ${err.detail}`;
  if (err instanceof PresenceNetworkError) return `error: ${err.code} — ${err.message}`;
  if (err instanceof PresenceProtocolError) return `error: protocol — ${err.message}`;
  if (err instanceof CliError) return `error: ${err.type} — ${err.message}`;
  const message = err instanceof Error ? err.message : String(err);
  return `error: internal — ${message.split('\n')[0]}`;
}

export function reportError(err: unknown, write: (s: string) => void, debug: boolean) {
  write(`${errorLine(err)}\n`);
  if (debug && err instanceof Error && err.stack) write(`${err.stack}\n`);
}
