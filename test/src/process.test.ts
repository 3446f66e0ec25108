// The server as a process: configuration errors, the ready line, clean shutdown on
// SIGTERM, and the operator CLI (crash safety under SIGKILL: crash-burst.test.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, removeDir, startTestServer, tempDir } from './harness';
import { childEnv, serverCli, serverMain, spawnServer } from './process';
import { until } from './wallet-helpers';

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe('server process', () => {
  it('a bad setting stops the start with one line naming the variable', () => {
    for (const [name, value] of [
      ['PRESENCE_PORT', 'eighty'],
      ['PRESENCE_RATE_LIMIT', 'lots'],
      ['PRESENCE_MASTER_KEY', 'short'],
    ]) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', serverMain], {
        env: { ...process.env, PRESENCE_DATA_DIR: tempDir(), [name as string]: value as string },
        encoding: 'utf8',
      });
      expect(r.status).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(name);
    }
  });

  it('SIGTERM lets an in-flight request finish before the process exits', async () => {
    // A model server that holds its answer until the test lets it go: the turn stays in
    // flight across the SIGTERM.
    let arrived: () => void = () => undefined;
    const modelCalled = new Promise<void>((r) => {
      arrived = r;
    });
    let release: () => void = () => undefined;
    const released = new Promise<void>((r) => {
      release = r;
    });
    const model = createServer((req, res) => {
      req.resume();
      req.on('end', async () => {
        arrived();
        await released;
        const chunk = (delta: object, finish: string | null) =>
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`${chunk({ role: 'assistant', content: 'finished after SIGTERM' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`);
      });
    });
    await new Promise<void>((r) => model.listen(0, '127.0.0.1', r));
    const dataDir = tempDir();
    const child = await spawnServer({
      PRESENCE_DATA_DIR: dataDir,
      PRESENCE_PORT: '0',
      PRESENCE_LLM_BASE_URL: `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`,
    });
    try {
      const { live } = JSON.parse(readFileSync(path.join(dataDir, 'bootstrap-keys.json'), 'utf8'));
      expect((await call(child.url, 'PATCH', '/v1/presence/me', { key: live, body: { route: { model: 'openai:slow' } } })).status).toBe(
        200,
      );
      const turn = call(child.url, 'POST', '/v1/messages', { key: live, body: { text: 'take your time' } });
      await modelCalled;
      child.proc.kill('SIGTERM');
      // The server says so in the turn it starts closing; the turn is still held by the model.
      await until(() => child.stdout().includes('SIGTERM, shutting down'), 10_000, 'the server to start closing');
      release();
      const answer = await turn;
      expect([answer.status, answer.json?.reply]).toEqual([200, 'finished after SIGTERM']);
      expect(await child.exited, child.stderr()).toBe(0);
    } finally {
      release();
      child.proc.kill('SIGKILL');
      await new Promise<void>((r) => model.close(() => r()));
      removeDir(dataDir);
    }
  });

  it('an unhandled rejection is one fatal JSON line, no stack, and exit code 70 for the supervisor to restart', async () => {
    const dataDir = tempDir();
    // A fault put into the real process from outside its code: SIGUSR2 rejects a promise nobody handles.
    const fault = 'data:text/javascript,process.on("SIGUSR2",()=>{Promise.reject(new Error("injected fault"))})';
    const child = await spawnServer(
      { PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0', PRESENCE_LOG_FORMAT: 'json' },
      { command: [process.execPath, '--import', fault, '--import', 'tsx', serverMain] },
    );
    try {
      child.proc.kill('SIGUSR2');
      // 70 is the documented crash code (docs/operations.md), distinct from 1, 2 and 3.
      expect(await child.exited, child.stderr()).toBe(70);
      const lines = child.stdout().trim().split('\n');
      const last = JSON.parse(lines.at(-1) as string);
      expect(last).toMatchObject({ level: 60, origin: 'unhandledRejection', err: { type: 'Error', message: 'injected fault' } });
      expect(last.msg).toContain('unhandled rejection');
      expect(child.stdout()).not.toContain('stack');
      expect(child.stderr()).not.toContain('injected fault');
    } finally {
      child.proc.kill('SIGKILL');
      removeDir(dataDir);
    }
  });

  it('keys saved before a crash that stopped the first start are stored and shown by the next start', async () => {
    const dataDir = tempDir();
    // What a crash after saving the keys, before storing them, leaves behind.
    const saved = { account: 'default', live: `prs_live_${'a1'.repeat(20)}`, test: `prs_test_${'b2'.repeat(20)}` };
    writeFileSync(path.join(dataDir, 'bootstrap-keys.json'), JSON.stringify(saved), { mode: 0o600 });
    const s = await startTestServer({ dataDir });
    try {
      expect(s.bootstrap).toEqual(saved);
      const listed = await call(s.url, 'GET', '/v1/keys', { key: saved.live });
      expect(listed.json.keys.map((k: { name: string; last4: string }) => [k.name, k.last4])).toEqual([
        ['admin', saved.live.slice(-4)],
        ['test', saved.test.slice(-4)],
      ]);
      expect((await call(s.url, 'GET', '/v1/presence/me', { key: saved.test })).headers.get('presence-mode')).toBe('test');
      const again = await s.restart();
      expect(again.bootstrap).toBeNull();
      await again.close();
    } finally {
      await s.close();
      removeDir(dataDir);
    }
  });

  it('a first start whose account was created but whose keys were lost gets fresh keys, saved 0600', async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir });
    const lost = { live: first.live, test: first.test };
    await first.close();
    // The old order's crash: `default` stored, its keys never saved. Simulate by dropping the
    // key records and the file.
    rmSync(path.join(dataDir, 'bootstrap-keys.json'));
    const keysDoc = path.join(dataDir, 'data', 'keys', 'default.json');
    const doc = JSON.parse(readFileSync(keysDoc, 'utf8'));
    writeFileSync(keysDoc, JSON.stringify({ ...doc, keys: [] }));
    const s = await startTestServer({ dataDir });
    try {
      expect(s.bootstrap?.live).not.toBe(lost.live);
      expect((await call(s.url, 'GET', '/v1/presence/me', { key: s.live })).status).toBe(200);
      expect(statSync(path.join(dataDir, 'bootstrap-keys.json')).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(path.join(dataDir, 'bootstrap-keys.json'), 'utf8')).live).toBe(s.live);
    } finally {
      await s.close();
      removeDir(dataDir);
    }
  });

  it.skipIf(!existsSync('/usr/bin/script'))('on a terminal, the first start prints the keys once', async () => {
    const dataDir = tempDir();
    // script(1) gives the server a terminal for its stdout.
    const command = `${process.execPath} --import tsx ${serverMain}`;
    const child = await spawnServer(
      { PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0' },
      { command: ['/usr/bin/script', '-qefc', command, '/dev/null'] },
    );
    const saved = JSON.parse(readFileSync(path.join(dataDir, 'bootstrap-keys.json'), 'utf8'));
    await until(() => child.stdout().includes(saved.test), 5_000, 'the keys');
    expect(child.stdout()).toContain(`live  ${saved.live}`);
    process.kill(Number(readFileSync(path.join(dataDir, 'server.pid'), 'utf8')), 'SIGTERM');
    expect(await child.exited).toBe(0);
    removeDir(dataDir);
  });

  it('a first start that cannot listen keeps its keys for the first start that does, which names their file once', async () => {
    const dataDir = tempDir();
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = String((taken.address() as AddressInfo).port);
    try {
      const failed = spawnSync(process.execPath, ['--import', 'tsx', serverMain], {
        env: childEnv({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: port, PRESENCE_LOG_LEVEL: 'warn' }),
        encoding: 'utf8',
      });
      expect(failed.status).toBe(1);
      expect(failed.stderr).toMatch(/could not start: .*EADDRINUSE.*PRESENCE_PORT/);
      // The keys were saved (and stored) before the listen failed.
      const saved = JSON.parse(readFileSync(path.join(dataDir, 'bootstrap-keys.json'), 'utf8'));
      const shown = failed.stdout;
      await new Promise<void>((r) => taken.close(() => r()));

      const next = await spawnServer({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: port });
      const seen = shown + next.stdout();
      // Not a terminal: the keys themselves are never printed, their file is named once.
      expect([occurrences(seen, saved.live), occurrences(seen, saved.test)]).toEqual([0, 0]);
      expect(occurrences(seen, '"keys_file"')).toBe(1);
      expect((await call(next.url, 'GET', '/v1/presence/me', { key: saved.live })).status).toBe(200);
      next.proc.kill('SIGTERM');
      expect(await next.exited).toBe(0);

      const later = await spawnServer({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0' });
      expect(later.stdout()).not.toContain(saved.live);
      later.proc.kill('SIGTERM');
      expect(await later.exited).toBe(0);
    } finally {
      taken.close();
      removeDir(dataDir);
    }
  });

  it('`npm start` and `npx presence-server` typed in one directory share its data: the CLI refuses while the server runs, naming it', async () => {
    // `npm start` runs the server in whatever directory its script says (server/ under
    // `npm run -w`) and keeps the caller's in INIT_CWD; npx runs where it was typed.
    const typedIn = realpathSync(tempDir());
    const dataDir = path.join(typedIn, '.presence');
    const serverDir = path.dirname(path.dirname(serverMain));
    const child = await spawnServer({ PRESENCE_PORT: '0', PRESENCE_DATA_DIR: undefined, INIT_CWD: typedIn }, { cwd: serverDir });
    try {
      expect(child.stdout()).toContain(`Presence listening on ${child.url} (data in ${dataDir})`);
      expect(child.stdout()).toContain(`saved to ${path.join(dataDir, 'bootstrap-keys.json')}`);
      expect(existsSync(path.join(dataDir, 'bootstrap-keys.json'))).toBe(true);
      const busy = spawnSync(process.execPath, [serverCli, 'accounts', 'create', 'acme'], {
        cwd: typedIn,
        env: childEnv({ PRESENCE_DATA_DIR: undefined, INIT_CWD: undefined }),
        encoding: 'utf8',
      });
      expect(busy.status).toBe(3);
      expect(busy.stdout).toBe('');
      const pid = child.proc.pid;
      expect(busy.stderr.trim().split('\n')).toEqual([
        `error: a Presence server (pid ${pid}) is running on ${dataDir}; stop it first (Ctrl-C in its terminal, or kill ${pid}), then run this again`,
      ]);
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
    }
    // Stopped, the same command from the same place creates the account in the server's data.
    const created = spawnSync(process.execPath, [serverCli, 'accounts', 'create', 'acme'], {
      cwd: typedIn,
      env: childEnv({ PRESENCE_DATA_DIR: undefined, INIT_CWD: undefined }),
      encoding: 'utf8',
    });
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toContain(`(data in ${dataDir})`);
    removeDir(typedIn);
  });

  it('presence-server accounts create NAME prints a working admin key, and refuses while the server runs', async () => {
    const dataDir = tempDir();
    const env = { ...process.env, PRESENCE_DATA_DIR: dataDir };
    const r = spawnSync(process.execPath, [serverCli, 'accounts', 'create', 'acme'], { env, encoding: 'utf8' });
    expect(r.status).toBe(0);
    const key = /admin key (prs_live_\w+)/.exec(r.stdout)?.[1];
    expect(key).toBeDefined();
    const bad = spawnSync(process.execPath, [serverCli, 'accounts', 'create', 'Bad Name'], { env, encoding: 'utf8' });
    expect(bad.status).toBe(2); // a usage error, as a bad setting is
    expect(bad.stderr).toMatch(/^error: invalid_request/);
    const taken = spawnSync(process.execPath, [serverCli, 'accounts', 'create', 'acme'], { env, encoding: 'utf8' });
    expect(taken.status).toBe(1);
    expect(taken.stderr).toMatch(/^error: conflict/);
    const child = await spawnServer({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0' });
    try {
      const me = await call(child.url, 'GET', '/v1/keys', { key: key as string });
      expect(me.status).toBe(200);
      // Another account existing first does not stop the first start's `default` and its keys.
      const saved = JSON.parse(readFileSync(path.join(dataDir, 'bootstrap-keys.json'), 'utf8'));
      expect(saved.account).toBe('default');
      expect(child.stdout()).toContain(path.join(dataDir, 'bootstrap-keys.json'));
      const def = await call(child.url, 'GET', '/v1/keys', { key: saved.live });
      expect(def.json.keys.map((k: { name: string }) => k.name)).toEqual(['admin', 'test']); // default's, not acme's
      const busy = spawnSync(process.execPath, [serverCli, 'accounts', 'create', 'later'], { env, encoding: 'utf8' });
      expect(busy.status).toBe(3);
      expect(busy.stderr).toContain('stop it first');
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
      removeDir(dataDir);
    }
  });
  it('presence-server surfaces create|list|revoke on a data directory: the server started there takes the token, until it is revoked', async () => {
    const dataDir = tempDir();
    const env = childEnv({ PRESENCE_DATA_DIR: dataDir });
    const surfaces = (...args: string[]) => spawnSync(process.execPath, [serverCli, 'surfaces', ...args], { env, encoding: 'utf8' });
    const redeem = async (url: string, live: string, token: string) => {
      const { code } = (await call(url, 'POST', '/v1/links', { key: live, body: {} })).json;
      return call(url, 'POST', `/v1/links/${code}/redeem`, { key: token, body: { surface: 'telegram', user_id: 'u1', name: 'u1' } });
    };
    try {
      const made = surfaces('create', 'tg-main');
      expect(made.status, made.stderr).toBe(0);
      expect(made.stdout).toContain(`(data in ${dataDir})`);
      const [, id, token] = /^surface (srf_\w+) tg-main .*\nsurface token (prs_surface_\w+)\n/.exec(made.stdout) ?? [];
      expect(id && token).toBeTruthy();
      const listed = surfaces('list');
      expect(listed.stdout).toMatch(new RegExp(`^${id}  tg-main .*…${(token as string).slice(-4)} +0 links  live since `));
      expect(listed.stdout).not.toContain(token);

      let child = await spawnServer({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0' });
      const { live } = JSON.parse(readFileSync(path.join(dataDir, 'bootstrap-keys.json'), 'utf8'));
      try {
        expect((await redeem(child.url, live, token as string)).status).toBe(200);
        expect(surfaces('list').status).toBe(3); // the data directory is the running server's
      } finally {
        child.proc.kill('SIGTERM');
        await child.exited;
      }
      expect(surfaces('list').stdout).toMatch(/ 1 links {2}live since /);
      const revoked = surfaces('revoke', 'tg-main');
      expect([revoked.status, revoked.stdout]).toEqual([0, `revoked surface ${id} tg-main\n`]);
      expect(surfaces('list').stdout).toMatch(/ 1 links {2}revoked /);

      child = await spawnServer({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0' });
      try {
        const refused = await redeem(child.url, live, token as string);
        expect([refused.status, refused.json.type]).toEqual([401, 'auth']);
      } finally {
        child.proc.kill('SIGTERM');
        await child.exited;
      }
    } finally {
      removeDir(dataDir);
    }
    // Seven runs of the operator CLI (each compiles the server through tsx: 2–7 s on a busy
    // 2-core machine) and two server starts: past the suite's 60 s default under CI's load.
  }, 180_000);
});
