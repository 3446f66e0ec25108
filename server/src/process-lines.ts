// What `serve` itself says on stdout (progress, the ready line, shutdown), in the log's format:
// in JSON every stdout line is a JSON object shaped like pino's (level, time, pid, hostname,
// msg), so a service manager's journal or a log shipper never meets a line it cannot parse;
// in the readable format, `presence: …` lines.
import { hostname } from 'node:os';
import type { LogFormat } from './logger';

/** One stdout line (newline included) in the format. */
export type ProcessLine = (msg: string, fields?: Record<string, unknown>) => string;

const INFO = 30;

export function processLine(format: LogFormat): ProcessLine {
  if (format === 'pretty') return (msg) => `presence: ${msg}\n`;
  return (msg, fields = {}) =>
    `${JSON.stringify({ level: INFO, time: Date.now(), pid: process.pid, hostname: hostname(), ...fields, msg })}\n`;
}
