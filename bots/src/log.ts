// The bots' logger: one line per entry on stderr, and no secret ever in it. Bot tokens and
// every Presence key the bots open are registered as secrets and replaced by "***" wherever
// they would appear (an error message quoting a URL with the bot token, say).
export type LogLevel = 'info' | 'warn' | 'error';
export type Logger = {
  (level: LogLevel, message: string, fields?: Record<string, unknown>): void;
  /** Never print this string (a token or key). */
  addSecret(secret: string): void;
};

export function createLogger(write: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Logger {
  const secrets = new Set<string>();
  const redact = (text: string) => {
    let out = text;
    for (const s of secrets) out = out.split(s).join('***');
    return out;
  };
  const log = ((level, message, fields) => {
    const extra = fields
      ? Object.entries(fields)
          .map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(v) : String(v)}`)
          .join(' ')
      : '';
    write(redact(`${new Date().toISOString()} ${level} ${message}${extra ? ` ${extra}` : ''}`));
  }) as Logger;
  log.addSecret = (secret) => {
    if (secret.length >= 8) secrets.add(secret);
  };
  return log;
}
