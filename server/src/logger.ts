// The production logger configuration, in one place so the tests that check what reaches a
// log line run this one, not a copy. No stack traces and no secrets in any log line:
// - errors are logged as their type, message and code, never their stack (a stack names our
//   files and can carry values from the frames that threw);
// - request lines carry method, redacted URL, host and peer address only, never headers, so
//   Authorization never reaches the log (there is nothing to redact);
// - link codes are one-time credentials that travel in the redeem URL: logged URLs show
//   where the request went, never which code.
import { isPresenceError } from '@presence/core';
import type { FastifyRequest, FastifyServerOptions } from 'fastify';

/** Where log lines go (pino writes one JSON line per call). */
export type LogStream = { write(line: string): void };

const REDEEM_CODE = /(\/links\/)[^/?#]*(\/redeem)/gi;

/** A URL fit for a log line: the code in /v1/links/{code}/redeem is replaced. */
export const redactUrl = (url: string) => url.replace(REDEEM_CODE, '$1[redacted]$2');

/** What a log line says about an error: its kind, message and code, without its stack. */
export function errorSummary(err: unknown): Record<string, unknown> {
  if (isPresenceError(err)) return { type: err.type, message: err.detail };
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return { type: err.constructor?.name ?? err.name, message: err.message, ...(typeof code === 'string' ? { code } : {}) };
  }
  if (err && typeof err === 'object') {
    const { stack: _stack, ...rest } = err as Record<string, unknown>;
    return rest;
  }
  return { message: String(err) };
}

export function productionLogger(level: string, stream?: LogStream): NonNullable<FastifyServerOptions['logger']> {
  return {
    level,
    ...(stream ? { stream } : {}),
    serializers: {
      req: (req: FastifyRequest) => ({
        method: req.method,
        url: redactUrl(req.url),
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
      // Fastify's typings expect pino's own error shape (stack included); leaving it out is the point.
      err: errorSummary as never,
    },
  };
}
