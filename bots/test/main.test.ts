// The presence-bots binary: configuration errors are one clear line and a non-zero exit,
// and a bot that cannot start says why without printing its token.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from './helpers/presence';
import { startTelegramApi } from './helpers/telegram-api';

const bin = path.resolve(import.meta.dirname, '../bin/presence-bots.js');
const dataDir = tempDir('presence-bots-main-');
afterAll(() => removeDir(dataDir));

function runBin(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PRESENCE_BOTS_DATA_DIR: dataDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 20_000, // a hung start must not outlive the test
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('presence-bots', () => {
  it('with neither token set: one clear line, exit code 2', async () => {
    const r = await runBin({});
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      'presence-bots: no bot to run: set TELEGRAM_BOT_TOKEN and/or DISCORD_BOT_TOKEN (see bots/README.md)',
    ]);
  });

  it('a bot whose token the platform refuses fails the start without printing the token', async () => {
    const tg = await startTelegramApi({ token: '1:the-only-valid-token' });
    try {
      const token = '555:never-print-this-token';
      const r = await runBin({ TELEGRAM_BOT_TOKEN: token, TELEGRAM_API_ROOT: tg.url });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/presence-bots could not start: .*401/);
      expect(r.stderr + r.stdout).not.toContain(token);
    } finally {
      await tg.close();
    }
  });
});
