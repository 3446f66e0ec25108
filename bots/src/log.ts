// The bots' logger: one entry a line on stderr, and no secret ever in it. Bot tokens and
// every Presence key the bots open are registered as secrets and replaced by "***" wherever
// they would appear (an error message quoting a URL with the bot token, say).
// Two formats, like the server's: JSON lines for whatever collects them (one object a line:
// `level` as pino numbers it, `time` in ms since the epoch, `msg`, then the fields), and a
// readable line for someone watching a terminal. PRESENCE_LOG_FORMAT chooses; unset, a
// terminal gets the readable form.
export type LogLevel = 'info' | 'warn' | 'error';
export type LogFormat = 'pretty' | 'json';
export type Logger = {
  (level: LogLevel, message: string, fields?: Record<string, unknown>): void;
  /** Never print this string (a token or key). */
  addSecret(secret: string): void;
};

/** pino's level numbers, so one pipeline reads the server's lines and the bots' alike. */
const LEVEL_NUMBER: Record<LogLevel, number> = { info: 30, warn: 40, error: 50 };

/** An Error says its message (never its stack); anything else as it is. */
const plain = (v: unknown) => (v instanceof Error ? v.message : v);

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
  const redact = (text: string) => {
    let out = text;
    for (const s of secrets) out = out.split(s).join('***');
    return out;
  };
  const log = ((level, message, fields) => {
    if (format === 'json') {
      const extra = Object.fromEntries(Object.entries(fields ?? {}).map(([k, v]) => [k, plain(v)]));
      write(redact(JSON.stringify({ level: LEVEL_NUMBER[level], time: now(), msg: message, ...extra })));
      return;
    }
    const extra = fields
      ? Object.entries(fields)
          .map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(v) : String(plain(v))}`)
          .join(' ')
      : '';
    write(redact(`${new Date(now()).toISOString()} ${level} ${message}${extra ? ` ${extra}` : ''}`));
  }) as Logger;
  log.addSecret = (secret) => {
    if (secret.length >= 8) secrets.add(secret);
  };
  return log;
}
