// What a serving process does with an error nobody handled (an unhandled rejection or an
// uncaught exception): after one, what the process holds in memory can no longer be trusted,
// so it says so in one fatal log line and exits with its own code, for the supervisor to
// restart it (systemd's Restart=on-failure; docs/operations.md). Node's default would print a
// stack to stderr and exit 1, which reads like a failed start and names our files.
// The line carries the error's kind, message, code and causes, redacted (error-summary.ts), but
// never its stack, and for a rejection with something other than an Error only the kind of
// value: a plain object can hold anything, a request's body or a key included.

import { redactMessage } from '@presence/core';
import { errorSummary } from './http/error-summary';

/** A serving process that failed with an error nobody handled (sysexits' EX_SOFTWARE). */
export const CRASH_EXIT_CODE = 70;

/** How long the buffered log gets to reach stdout before the process exits anyway. */
const FLUSH_WAIT_MS = 2_000;

export type CrashOrigin = 'unhandledRejection' | 'uncaughtException';

/** Writes the fatal line (pino's `logger.fatal(fields, msg)`). */
export type FatalLog = (fields: { err: Record<string, unknown>; origin: CrashOrigin }, msg: string) => void;

/** The parts of `process` used here, so tests can pass a stand-in. */
export type CrashingProcess = {
  on(event: CrashOrigin, listener: (err: unknown) => void): unknown;
  exit(code: number): unknown;
  exitCode?: number | string | null | undefined;
};

/** What the fatal line says about what was thrown or rejected. */
export function crashCause(thrown: unknown): Record<string, unknown> {
  if (thrown instanceof Error) return errorSummary(thrown);
  if (typeof thrown === 'string') return { type: 'string', message: redactMessage(thrown) };
  if (thrown === null || typeof thrown !== 'object') return { type: String(thrown) };
  return { type: thrown.constructor?.name ?? 'Object' };
}

const MESSAGES: Record<CrashOrigin, string> = {
  unhandledRejection: `unhandled rejection: exiting with code ${CRASH_EXIT_CODE} to be restarted`,
  uncaughtException: `uncaught exception: exiting with code ${CRASH_EXIT_CODE} to be restarted`,
};

export function exitOnCrash(
  proc: CrashingProcess,
  { log, flush, flushWaitMs = FLUSH_WAIT_MS }: { log: FatalLog; flush: () => Promise<void>; flushWaitMs?: number },
): void {
  let crashing = false;
  const crash = (origin: CrashOrigin) => (thrown: unknown) => {
    // Whatever else fails from here on, the process leaves with the crash's code.
    proc.exitCode = CRASH_EXIT_CODE;
    // A second failure while the first is reported (the log itself, say) changes nothing: the
    // exit is already on its way.
    if (crashing) return;
    crashing = true;
    try {
      log({ err: crashCause(thrown), origin }, MESSAGES[origin]);
    } catch {
      // The log cannot be written: exiting with the code still tells the supervisor.
    }
    const waited = new Promise<void>((resolve) => setTimeout(resolve, flushWaitMs).unref());
    Promise.race([Promise.resolve().then(flush), waited]).then(
      () => proc.exit(CRASH_EXIT_CODE),
      () => proc.exit(CRASH_EXIT_CODE),
    );
  };
  proc.on('unhandledRejection', crash('unhandledRejection'));
  proc.on('uncaughtException', crash('uncaughtException'));
}
