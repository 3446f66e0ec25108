// What `serve` itself says on stdout (progress, the ready line, shutdown), in the log's format:
// in JSON every stdout line is a JSON object shaped like pino's (level, time, pid, hostname,
// server, msg), so a service manager's journal or a log shipper never meets a line it cannot parse;
// in the readable format, `presence: …` lines.
import { hostname } from 'node:os';
import type { LogFormat } from './logger';

/** One stdout line (newline included) in the format, at pino's `level` (default info). */
export type ProcessLine = (msg: string, fields?: Record<string, unknown>, level?: number) => string;

const INFO = 30;
/** pino's level for a line the process exits after. */
export const FATAL = 60;

/** The readable form of an error field, as prettyLines renders the server's own lines. */
function errorSuffix(fields: Record<string, unknown> | undefined): string {
  const err = fields?.err as { type?: string; message?: string } | undefined;
  if (!err || typeof err !== 'object') return '';
  return ` (${[err.type, err.message].filter(Boolean).join(': ')})`;
}

/** `server` (PRESENCE_SERVER_ID) is on every JSON line, as on the request log's, once the configuration names it. */
export function processLine(format: LogFormat, server?: string): ProcessLine {
  if (format === 'pretty') return (msg, fields) => `presence: ${msg}${errorSuffix(fields)}\n`;
  const bindings = { pid: process.pid, hostname: hostname(), ...(server === undefined ? {} : { server }) };
  return (msg, fields = {}, level = INFO) => `${JSON.stringify({ level, time: Date.now(), ...bindings, ...fields, msg })}\n`;
}
