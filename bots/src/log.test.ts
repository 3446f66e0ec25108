// The bots' log lines: JSON objects (pino's level numbers, time, msg, fields) or readable
// lines, and never a registered secret in either.
import { describe, expect, it } from 'vitest';
import { createLogger, logFormatFor } from './log';

const TOKEN = '123456:AAE-secret-bot-token';

describe('the bots logger', () => {
  it('writes one JSON object a line, with level, time and msg first, and no secret', () => {
    const lines: string[] = [];
    const log = createLogger(
      (l) => lines.push(l),
      'json',
      () => 1_700_000_000_000,
    );
    log.addSecret(TOKEN);
    log('warn', `call to https://api.telegram.org/bot${TOKEN}/getMe failed`, { attempt: 2, error: new Error(`bad ${TOKEN}`) });
    expect(lines).toHaveLength(1);
    const o = JSON.parse(lines[0] as string);
    expect(Object.keys(o).slice(0, 3)).toEqual(['level', 'time', 'msg']);
    expect(o).toEqual({
      level: 40,
      time: 1_700_000_000_000,
      msg: 'call to https://api.telegram.org/bot***/getMe failed',
      attempt: 2,
      error: 'bad ***',
    });
    expect(lines[0]).not.toContain(TOKEN);
  });

  it('writes a readable line on a terminal, redacted the same way', () => {
    const lines: string[] = [];
    const log = createLogger(
      (l) => lines.push(l),
      'pretty',
      () => Date.UTC(2026, 0, 2, 3, 4, 5),
    );
    log.addSecret(TOKEN);
    log('info', 'linked', { user: 'ann', key: TOKEN });
    expect(lines).toEqual(['2026-01-02T03:04:05.000Z info linked user="ann" key="***"']);
  });

  it("masks what nobody registered: a URL's credentials and path, key shapes, a password in a connection string", () => {
    const lines: string[] = [];
    const log = createLogger((l) => lines.push(l), 'json');
    const key = `prs_live_${'Zx9'.repeat(12)}`;
    log('error', 'presence-bots could not start', {
      error: new Error(`connect to postgres://bots:hunter22@db:5432/bots failed: 401 for ${key}`),
      problem: 'password=hunter22 host=db',
      listening: 'http://127.0.0.1:8443/telegram-hook',
    });
    const o = JSON.parse(lines[0] as string);
    expect(o.error).toBe('connect to postgres://db:5432/… failed: 401 for [live key]');
    expect(o.problem).toBe('password=… host=db');
    expect(o.listening).toBe('http://127.0.0.1:8443/telegram-hook'); // ours, and an operator needs its path
    expect(lines[0]).not.toContain('hunter22');
    expect(lines[0]).not.toContain(key);
  });

  it('is JSON unless stderr is a terminal; PRESENCE_LOG_FORMAT decides when set', () => {
    expect(logFormatFor({}, false)).toBe('json');
    expect(logFormatFor({}, true)).toBe('pretty');
    expect(logFormatFor({ PRESENCE_LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(logFormatFor({ PRESENCE_LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
  });
});
