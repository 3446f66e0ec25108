// The bots' logger: one entry a line on stderr, and no secret ever in it. Bot tokens and
// every Presence key the bots open are registered as secrets and replaced by "***" wherever
// they would appear (an error message quoting a URL with the bot token, say); and every
// error's text then goes through core's redactMessage, as the server's lines do, for the
// secrets nobody registered (a URL's credentials or path, a key-shaped string, a connection
// string's password in a driver's error). A message that quotes an error redacts it itself.
// Two formats, like the server's: JSON lines for whatever collects them (one object a line:
// `level` as pino numbers it, `time` in ms since the epoch, `msg`, then the fields), and a
// readable line for someone watching a terminal. PRESENCE_LOG_FORMAT chooses; unset, a
// terminal gets the readable form.
import { redactMessage } from '@presence/core/files';

export type LogLevel = 'info' | 'warn' | 'error';
export type LogFormat = 'pretty' | 'json';
export type Logger = {
  (level: LogLevel, message: string, fields?: Record<string, unknown>): void;
  /** Never print this string (a token or key). */
  addSecret(secret: string): void;
};

/** Fields whose text is an error's message: redacted like one. */
const ERROR_FIELDS = new Set(['error', 'problem', 'reason', 'cause']);

/** pino's level numbers, so one pipeline reads the server's lines and the bots' alike. */
const LEVEL_NUMBER: Record<LogLevel, number> = { info: 30, warn: 40, error: 50 };

/** The format for this process: PRESENCE_LOG_FORMAT, else readable on a terminal and JSON otherwise. */
export function logFormatFor(env: NodeJS.ProcessEnv, isTty: boolean): LogFormat {
  const f = env.PRESENCE_LOG_FORMAT?.trim();
  return f === 'json' || f === 'pretty' ? f : isTty ? 'pretty' : 'json';
}

export function createLogger(
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  format: LogFormat = 'pretty',
  now: () => number = Date.now,
): Logger {
  const secrets = new Set<string>();
  /** Text fit for a line: the registered secrets first (whole, before anything reshapes them), then the shapes of any. */
  const masked = (text: string) => {
    let out = text;
    for (const s of secrets) out = out.split(s).join('***');
    return out;
  };
  const clean = (text: string) => redactMessage(masked(text));
  /**
   * An Error says its message (never its stack), redacted; so does the text of a field that
   * carries one (`error: String(e)`). Other text is ours and registered secrets are masked in
   * it: an address the bots listen on keeps its path, which an operator needs to read.
   */
  const plain = (k: string, v: unknown) =>
    v instanceof Error ? clean(v.message) : typeof v === 'string' ? (ERROR_FIELDS.has(k) ? clean(v) : masked(v)) : v;
  const log = ((level, message, fields) => {
    const entries = Object.entries(fields ?? {}).map(([k, v]) => [k, plain(k, v)] as const);
    if (format === 'json') {
      write(JSON.stringify({ level: LEVEL_NUMBER[level], time: now(), msg: masked(message), ...Object.fromEntries(entries) }));
      return;
    }
    const extra = entries.map(([k, v]) => ` ${k}=${typeof v === 'string' ? JSON.stringify(v) : String(v)}`).join('');
    write(`${new Date(now()).toISOString()} ${level} ${masked(message)}${extra}`);
  }) as Logger;
  log.addSecret = (secret) => {
    if (secret.length >= 8) secrets.add(secret);
  };
  return log;
}
