// `presence-bots try`, as someone without Telegram runs it: the binary with the real Telegram
// bot against its loopback Bot API, chatted with through stdin and stdout, against the real
// Presence server on its devnet. With an admin key it links the chat itself; a message gets
// the presence's reply; a held action shows its buttons as numbered choices and typing the
// number approves it; /quit ends it with code 0. With no server to talk to: one line, code 1.
// And `npm run bots` with a token Telegram would refuse says so in one line, without npm's
// error lines after it.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Presence, removeDir, startPresence, tempDir } from './helpers/presence';
import { waitFor } from './helpers/wait';

const bin = path.resolve(import.meta.dirname, '../bin/presence-bots.js');
const root = path.resolve(import.meta.dirname, '../..');
let presence: Presence;

beforeAll(async () => {
  presence = await startPresence();
});
afterAll(async () => {
  await presence?.close();
});

function startTry(env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [bin, 'try'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: 110_000,
    killSignal: 'SIGKILL',
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    out: () => stdout,
    err: () => stderr,
    type: (line: string) => child.stdin?.write(`${line}\n`),
    /** The last line, then the end of input. */
    end: (line: string) => child.stdin?.end(`${line}\n`),
    exited,
  };
}

describe('presence-bots try', () => {
  it('links the chat with PRESENCE_TOKEN, relays a message, shows a held action as numbered choices, and a number approves it', async () => {
    const t = startTry({ PRESENCE_URL: presence.server.url, PRESENCE_TOKEN: presence.server.bootstrap?.live as string });
    const seen = (re: RegExp, what: string) =>
      waitFor(() => re.test(t.out()), { timeoutMs: 60_000, what: `${what} in:\n${t.out()}\n${t.err()}` });
    await seen(/^you> \/link \w+/m, 'the /link line typed for you');
    await seen(/^bot> Linked to the account /m, 'the link confirmed');
    await seen(/your message from the chat/, 'the /link message deleted');

    t.type('how deep is WETH-USDC');
    await seen(/^bot> .*WETH/m, "the presence's reply");

    t.type('swap 20 USDC for WETH');
    await seen(/^\s+\[1\] .*Approve.*\[2\] .*Deny/m, 'the held action with its two buttons');
    t.type('1');
    await seen(/Approved and executed: /, 'the card edited to executed');

    t.type('/quit');
    expect(await t.exited).toBe(0);
    expect(t.out()).not.toContain(presence.server.bootstrap?.live as string);
  }, 120_000);

  it('with its input piped and ended at once (a script): links, then ends by itself with code 0', async () => {
    const t = startTry({ PRESENCE_URL: presence.server.url, PRESENCE_TOKEN: presence.server.bootstrap?.live as string });
    t.end('/quit');
    expect(await t.exited, t.err()).toBe(0);
    expect(t.out()).toMatch(/^you> \/link \w+/m);
  }, 90_000);

  it('with no Presence server at PRESENCE_URL: one line, exit code 1', async () => {
    const t = startTry({ PRESENCE_URL: 'http://127.0.0.1:9' });
    expect(await t.exited).toBe(1);
    expect(t.err().trim().split('\n')).toEqual([
      'presence-bots try: no Presence server answers at http://127.0.0.1:9: start one (npm start) or set PRESENCE_URL',
    ]);
  });
});

describe('npm run bots', () => {
  it('whose start fails prints its one line and no npm error lines', () => {
    // A Bot API that refuses connections: the start fails at once.
    const dataDir = tempDir('presence-bots-npm-');
    const r = spawnSync('npm', ['run', 'bots'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 90_000,
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
        TELEGRAM_BOT_TOKEN: '555:a-token-telegram-would-refuse',
        TELEGRAM_API_ROOT: 'http://127.0.0.1:9',
        PRESENCE_URL: presence.server.url,
        PRESENCE_LOG_FORMAT: 'pretty',
        PRESENCE_BOTS_DATA_DIR: dataDir,
      },
    });
    removeDir(dataDir);
    expect(r.stderr).toMatch(/presence-bots could not start: /);
    expect(r.stderr).not.toMatch(/npm error|npm ERR!/);
    expect(r.stderr).not.toContain('a-token-telegram-would-refuse');
  }, 90_000);
});
