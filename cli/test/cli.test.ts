// The `presence` CLI as a child process against a real server: help, login/logout and
// the config file, env over config, human and --json output, exit codes, events tail.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPresenceClient } from '@presence/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../client/test/helpers/collect';
import { startProxy } from '../../client/test/helpers/proxy';
import { startTestServer, type TestServer, tempDir } from '../../client/test/helpers/server';
import { bin, cleanEnv, runPresence, spawnPresence } from './helpers/cli';

let s: TestServer;
let home: string;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.stop();
});

/** A fresh HOME / XDG_CONFIG_HOME per test, pointing at the test server. */
function env(extra: Record<string, string | undefined> = {}) {
  home = tempDir('presence-cli-home-');
  return { HOME: home, XDG_CONFIG_HOME: path.join(home, 'xdg'), PRESENCE_URL: s.url, ...extra };
}
const configFile = () => path.join(home, 'xdg', 'presence', 'config.json');
const oneLine = (stderr: string) => stderr.trim().split('\n');
/** How long a spawned bin may take to connect: a bound on a hang (tsx starts slowly under CI's load), not a timing claim. */
const CHILD_START_MS = 40_000;

describe('presence CLI', () => {
  it('--help lists every command', async () => {
    const r = await runPresence(['--help'], env());
    expect(r.code).toBe(0);
    for (const cmd of [
      'presence login [--with-token] [--key <key>] [--url <url>]',
      'presence logout',
      'presence me',
      'presence events',
      'presence memory list',
      'presence memory pin <key>',
      'presence memory forget <key>',
      'presence keys list',
      'presence keys create --name <name> --scopes <list> [--test]',
      'presence keys rotate <id> [--grace <seconds>]',
      'presence keys revoke <id>',
      'presence chat [text...] [--act]',
      'presence confirm list [--all]',
      'presence confirm <id> --approve|--deny',
      'presence wallet',
      'presence policy get',
      'presence policy set <file>',
      'presence intent <sentence...>',
      'presence chain tokens',
      'presence chain pools [pair] [--pair <pair>]',
      'presence chain positions',
      'presence chain safety [token] [--token <token>]',
      'presence standing list',
      'presence standing cancel <id>',
      'presence link',
    ]) {
      expect(r.stdout).toContain(cmd);
    }
    expect(r.stdout).toContain('--json');
    expect(r.stdout).toContain(
      'Exit codes: 0 success, 1 other, 2 usage or invalid input, 3 auth, 4 scope,\n  5 refused (policy or state), 6 ',
    );
    // Run as `node bin/presence.js` with no presence on PATH: help says how to run it here.
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('From this shell, run it as: node bin/presence.js <command>');
  });

  it('confirm list and confirm <id> are subcommands, each with its own help line and --help', async () => {
    const confirm = await runPresence(['confirm', '--help'], env());
    expect(confirm.code).toBe(0);
    expect(confirm.stdout).toMatch(/^ {2}list \[options\]\s+held actions waiting for your answer$/m);
    expect(confirm.stdout).toMatch(/^ {2}<id> --approve\|--deny\s+approve or deny one held action/m);
    expect(confirm.stdout).toContain('Typed bare, `presence confirm` runs `presence confirm list`.');
    const list = await runPresence(['confirm', 'list', '--help'], env());
    expect(list.stdout).toMatch(/^Usage: presence confirm list \[options\]$/m);
    expect(list.stdout).toMatch(/^ {2}--all\s+every confirmation, not only held ones$/m);
    expect(list.stdout).not.toContain('--approve');
    const answer = await runPresence(['confirm', 'answer', '--help'], env());
    expect(answer.stdout).toMatch(/^Usage: presence confirm answer <confirm_id> --approve\|--deny$/m);
    expect(answer.stdout).toMatch(/^ {2}--approve\s+execute the held action$/m);
  });

  it('a bare group runs its obvious read, as a bare confirm lists; its --help says so; a group without one prints help', async () => {
    const e = env({ PRESENCE_TOKEN: s.live });
    for (const [group, read] of [
      ['memory', 'list'],
      ['standing', 'list'],
      ['keys', 'list'],
      ['webhooks', 'list'],
      ['policy', 'get'],
    ]) {
      const bare = await runPresence([group as string, '--json'], e);
      const named = await runPresence([group as string, read as string, '--json'], e);
      expect([group, bare.code, bare.stderr]).toEqual([group, 0, '']);
      expect(JSON.parse(bare.stdout)).toEqual(JSON.parse(named.stdout));
      const help = await runPresence([group as string, '--help'], e);
      expect([help.code, help.stdout]).toEqual([0, expect.stringContaining(`Usage: presence ${group} [options] [command]`)]);
      expect(help.stdout).toContain(`Typed bare, \`presence ${group}\` runs \`presence ${group} ${read}\`.`);
    }
    // A mistyped subcommand is still an unknown command, not an argument to the read.
    const typo = await runPresence(['memory', 'pni'], e);
    expect([typo.code, oneLine(typo.stderr)]).toEqual([2, ["error: usage — unknown command 'pni' (Did you mean pin?) (see --help)"]]);
    const extra = await runPresence(['memory', 'list', 'x'], e);
    expect([extra.code, oneLine(extra.stderr)[0]]).toEqual([2, expect.stringContaining("too many arguments for 'list'")]);
    // chain has no one obvious read: bare, it prints its help (and fails, as Commander does).
    const chain = await runPresence(['chain'], e);
    expect(chain.code).not.toBe(0);
    expect(chain.stdout + chain.stderr).toContain('Usage: presence chain [options] [command]');
  });

  it('chain safety and pools take the token or pair as an argument or a flag; both, differing, is a usage error', async () => {
    const e = env({ PRESENCE_TOKEN: s.live });
    const both = await runPresence(['chain', 'safety', 'SCAM', '--token', 'WETH'], e);
    expect([both.code, oneLine(both.stderr)]).toEqual([2, ['error: usage — SCAM and --token WETH differ: give the token once']]);
    const pools = await runPresence(['chain', 'pools', 'WETH-USDC', '--pair', 'WETH-DAI'], e);
    expect([pools.code, oneLine(pools.stderr)]).toEqual([2, ['error: usage — WETH-USDC and --pair WETH-DAI differ: give the pair once']]);
    const none = await runPresence(['chain', 'safety'], e);
    expect([none.code, oneLine(none.stderr)]).toEqual([2, ['error: usage — say which token: node bin/presence.js chain safety <token>']]);
  });

  it('login validates the key, writes the config file 0600, and later commands use it', async () => {
    const e = env();
    const r = await runPresence(['login', '--key', s.live], e);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`logged in\t${s.url} — presence`); // piped: TSV
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(configFile())).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(configFile(), 'utf8'))).toEqual({ url: s.url, token: s.live });
    // No PRESENCE_URL or PRESENCE_TOKEN now: both come from the file.
    const me = await runPresence(['me', '--json'], { ...e, PRESENCE_URL: undefined });
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({ mode: 'live' });

    const out = await runPresence(['logout'], e);
    expect(out.code).toBe(0);
    expect(existsSync(configFile())).toBe(false);
    const after = await runPresence(['me'], e);
    expect(after.code).toBe(3);
    expect(oneLine(after.stderr)).toEqual([
      'error: auth — no key: set PRESENCE_TOKEN or run `node bin/presence.js login --with-token` (the key on stdin)',
    ]);
  });

  it('login --with-token reads the key from stdin (never an argument), and refuses empty or odd input', async () => {
    const e = env();
    const r = await runPresence(['login', '--with-token', '--json'], e, `  ${s.live}\n`);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toMatchObject({ url: s.url, mode: 'live' });
    expect(JSON.parse(readFileSync(configFile(), 'utf8'))).toEqual({ url: s.url, token: s.live });
    const me = await runPresence(['me', '--json'], e);
    expect(JSON.parse(me.stdout)).toMatchObject({ mode: 'live' });

    const fresh = env();
    for (const [input, why] of [
      ['', 'error: usage — standard input held no key'],
      [`${s.live} ${s.test}\n`, 'error: usage — standard input held more than one word; give just the key'],
      ['x'.repeat(5000), 'error: usage — standard input is over 4096 characters: not a key'],
    ] as const) {
      const bad = await runPresence(['login', '--with-token'], fresh, input);
      expect([bad.code, oneLine(bad.stderr)]).toEqual([2, [why]]);
    }
    const neither = await runPresence(['login'], fresh);
    expect([neither.code, oneLine(neither.stderr)]).toEqual([
      2,
      ['error: usage — give the key on standard input: node bin/presence.js login --with-token < key.txt (or --key <key>)'],
    ]);
    const both = await runPresence(['login', '--with-token', '--key', s.live], fresh, s.live);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^error: usage — option '--with-token' cannot be used with option '--key <key>'/);
    const wrong = await runPresence(['login', '--with-token'], fresh, 'prs_live_wrong\n');
    expect(wrong.code).toBe(3);
    expect(existsSync(configFile())).toBe(false);
  });

  // util-linux `script` gives the CLI a real terminal, so the prompt path runs as a person meets it.
  const hasScript = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!hasScript)('login --with-token at a terminal prompts on stderr, reads one line unseen, and Ctrl-C cancels', async () => {
    const atTerminal = (e: Record<string, string | undefined>, typed: string) => {
      const proc = spawn('script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} login --with-token`, '/dev/null'], {
        env: cleanEnv(e),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      let done = false;
      proc.stdout.on('data', (d) => {
        out += d;
        // Type once the prompt is up, as a person would.
        if (!done && out.includes('then press Enter: ')) {
          done = true;
          proc.stdin.write(typed);
        }
      });
      const timer = setTimeout(() => proc.kill('SIGKILL'), 45_000);
      return new Promise<{ code: number | null; out: string }>((resolve) =>
        proc.on('close', (code) => {
          clearTimeout(timer);
          resolve({ code, out });
        }),
      );
    };
    const e = env();
    const ok = await atTerminal(e, `${s.live}\r`);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('Paste the key (it will not show), then press Enter: ');
    expect(ok.out).toMatch(/logged in\s+http:\/\/127\.0\.0\.1:\d+ — presence/);
    expect(ok.out).not.toContain(s.live); // never echoed
    expect(JSON.parse(readFileSync(configFile(), 'utf8'))).toEqual({ url: s.url, token: s.live });

    const fresh = env();
    const cancelled = await atTerminal(fresh, 'prs_live_half\x03');
    expect(cancelled.code).toBe(1);
    expect(cancelled.out).toContain('error: cancelled — no key was entered');
    expect(existsSync(configFile())).toBe(false);
  });

  it('the config file is made 0600 in a 0700 directory also when an earlier version left them open', async () => {
    const e = env();
    const dir = path.dirname(configFile());
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    writeFileSync(configFile(), JSON.stringify({ url: s.url, token: s.live }));
    chmodSync(configFile(), 0o644);
    // Reading fixes both, and says so once.
    const me = await runPresence(['me', '--json'], e);
    expect(me.code).toBe(0);
    expect(oneLine(me.stderr)).toEqual([
      `note: ${dir} was open to other users (mode 0755); it is now 0700`,
      `note: ${configFile()} was open to other users (mode 0644); it is now 0600`,
    ]);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect((await runPresence(['me'], e)).stderr).toBe('');
    // Writing into a directory left open fixes it too.
    chmodSync(dir, 0o775);
    const login = await runPresence(['login', '--with-token'], { ...e, PRESENCE_TOKEN: s.live }, s.live);
    expect(login.code).toBe(0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
  });

  it('login with a bad key fails with exit 3 and writes nothing', async () => {
    const r = await runPresence(['login', '--key', 'prs_live_wrong'], env());
    expect(r.code).toBe(3);
    expect(oneLine(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: auth — /);
    expect(existsSync(configFile())).toBe(false);
  });

  it('PRESENCE_TOKEN wins over the config file', async () => {
    const e = env();
    mkdirSync(path.dirname(configFile()), { recursive: true });
    writeFileSync(configFile(), JSON.stringify({ url: s.url, token: s.test }), { mode: 0o600 });
    const fromFile = await runPresence(['me', '--json'], e);
    expect(JSON.parse(fromFile.stdout).mode).toBe('test');
    const fromEnv = await runPresence(['me', '--json'], { ...e, PRESENCE_TOKEN: s.live });
    expect(JSON.parse(fromEnv.stdout).mode).toBe('live');
  });

  it('me: TSV when piped, an aligned table on a terminal, the presence object with --json', async () => {
    const e = env({ PRESENCE_TOKEN: s.live });
    const piped = await runPresence(['me'], e);
    expect(piped.code).toBe(0);
    const rows = piped.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((r) => [r[0], r.length])).toEqual(['name', 'mode', 'model', 'memory', 'chain', 'spend', 'server'].map((k) => [k, 2]));
    expect(piped.stdout).toContain(`server\t${s.url}\n`);
    // On a terminal (a pseudo-terminal from util-linux `script`): aligned columns, no tabs.
    // Asynchronously: the server answers from this very process.
    const tty = await promisify(execFile)(
      'script',
      ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} me`, '/dev/null'],
      {
        env: cleanEnv(e),
      },
    );
    const lines = tty.stdout.replace(/\r/g, '').trimEnd().split('\n');
    expect(lines.map((l) => l.split(/\s{2,}/)[0])).toEqual(['name', 'mode', 'model', 'memory', 'chain', 'spend', 'server']);
    expect(new Set(lines.map((l) => l.search(/(?<=\s{2})\S/))).size).toBe(1); // values start in one column
    expect(tty.stdout).not.toContain('\t');
    const json = await runPresence(['--json', 'me'], e);
    expect(JSON.parse(json.stdout)).toEqual(await createPresenceClient({ baseUrl: s.url, token: s.live }).presence.me());
  });

  it('memory pin, list, forget: human and --json, and 7 when the key is gone', async () => {
    const e = env({ PRESENCE_TOKEN: s.live });
    const pin = await runPresence(['memory', 'pin', 'pair:WETH-USDC', '--note', 'watch depth'], e);
    expect([pin.code, pin.stdout]).toEqual([0, 'pinned pair:WETH-USDC\n']);
    const again = await runPresence(['memory', 'pin', 'pair:WETH-USDC', '--note', 'watch depth', '--json'], e);
    expect(JSON.parse(again.stdout)).toEqual({ key: 'pair:WETH-USDC', tier: 'pinned', note: 'watch depth', changed: false });

    // Piped: TSV rows only, so `cut -f1` prints keys; --headers keeps the header row.
    const list = await runPresence(['memory', 'list'], e);
    expect(list.stdout).not.toMatch(/^KEY\t/);
    const [header, ...rows] = (await runPresence(['memory', 'list', '--headers'], e)).stdout.trimEnd().split('\n');
    expect(header).toMatch(/^KEY\s+TIER\s+WEIGHT\s+DAYS LEFT\s+NOTE$/);
    expect(rows).toEqual(list.stdout.trimEnd().split('\n'));
    expect(rows.find((r) => r.startsWith('pair:WETH-USDC'))).toMatch(/^pair:WETH-USDC\s+pinned\s+\d\.\d\d\s+-\s+watch depth$/);
    const listJson = await runPresence(['memory', 'list', '--json'], e);
    expect(JSON.parse(listJson.stdout).pinned).toContainEqual(expect.objectContaining({ key: 'pair:WETH-USDC', note: 'watch depth' }));

    const forget = await runPresence(['memory', 'forget', 'pair:WETH-USDC', '--json'], e);
    expect(JSON.parse(forget.stdout)).toEqual({ key: 'pair:WETH-USDC', forgotten: true });
    const gone = await runPresence(['memory', 'forget', 'pair:WETH-USDC'], e);
    expect(gone.code).toBe(7);
    expect(oneLine(gone.stderr)).toEqual(['error: not_found — memory key pair:WETH-USDC is not stored']);
  });

  it('a test key says its write was simulated', async () => {
    const r = await runPresence(['memory', 'pin', 'topic:sandbox'], env({ PRESENCE_TOKEN: s.test }));
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('note: test key');
  });

  it('keys create, list, rotate, revoke: human and --json', async () => {
    const e = env({ PRESENCE_TOKEN: s.live });
    const created = await runPresence(['keys', 'create', '--name', 'cli-bot', '--scopes', 'talk, memory:read'], e);
    expect(created.code).toBe(0);
    const secret = /^secret\s+(prs_live_\S+)$/m.exec(created.stdout)?.[1];
    const id = /^id\s+(key_\S+)$/m.exec(created.stdout)?.[1];
    expect(secret).toBeTruthy();
    expect(created.stdout).toMatch(/^scopes\s+talk, memory:read$/m);
    expect(created.stdout).toContain('shown once');

    const list = await runPresence(['--headers', 'keys', 'list'], e);
    const [header, ...rows] = list.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+NAME\s+KIND\s+SCOPES\s+LAST4\s+STATE\s+CREATED\s+LAST USED$/);
    expect(rows.find((r) => r.startsWith(id!))).toMatch(
      new RegExp(`^${id}\\s+cli-bot\\s+live\\s+talk,memory:read\\s+${secret!.slice(-4)}\\s+active`),
    );
    expect(list.stdout).not.toContain(secret);
    const listJson = JSON.parse((await runPresence(['keys', 'list', '--json'], e)).stdout);
    expect(listJson.keys.map((k: { id: string }) => k.id)).toContain(id);

    const rotated = JSON.parse((await runPresence(['keys', 'rotate', id!, '--grace', '60', '--json'], e)).stdout);
    expect(rotated).toMatchObject({ id, secret: expect.stringMatching(/^prs_live_/), grace_until: expect.any(String) });
    expect(rotated.secret).not.toBe(secret);

    const revoked = await runPresence(['keys', 'revoke', id!], e);
    expect([revoked.code, revoked.stdout]).toEqual([0, `revoked ${id} (cli-bot)\n`]);
    const testKey = JSON.parse((await runPresence(['keys', 'create', '--name', 't', '--scopes', 'talk', '--test', '--json'], e)).stdout);
    expect(testKey.kind).toBe('test');
  });

  it('exit codes: 3 auth, 4 scope, 2 usage and invalid input, 6 network; one line, stack only with PRESENCE_DEBUG', async () => {
    const admin = createPresenceClient({ baseUrl: s.url, token: s.live });
    const talker = await admin.keys.create({ name: 'talker', scopes: ['talk'] });

    const auth = await runPresence(['me'], env({ PRESENCE_TOKEN: 'prs_live_nope' }));
    expect(auth.code).toBe(3);
    expect(oneLine(auth.stderr)).toHaveLength(1);

    const scope = await runPresence(['memory', 'list'], env({ PRESENCE_TOKEN: talker.secret }));
    expect(scope.code).toBe(4);
    expect(oneLine(scope.stderr)).toHaveLength(1);
    expect(scope.stderr).toMatch(/^error: scope — .*memory:read/);

    const keysScope = await runPresence(['keys', 'list', '--json'], env({ PRESENCE_TOKEN: talker.secret }));
    expect(keysScope.code).toBe(4);
    expect(keysScope.stdout).toBe('');

    const invalid = await runPresence(['memory', 'pin', 'no-namespace'], env({ PRESENCE_TOKEN: s.live }));
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^error: invalid_request — /);

    const usage = await runPresence(['keys', 'nope'], env({ PRESENCE_TOKEN: s.live }));
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^error: usage — /);
    const badFlag = await runPresence(['keys', 'rotate', 'key_x', '--grace', 'soon'], env({ PRESENCE_TOKEN: s.live }));
    expect(badFlag.code).toBe(2);

    const down = await runPresence(['me'], env({ PRESENCE_TOKEN: s.live, PRESENCE_URL: 'http://127.0.0.1:9' }));
    expect(down.code).toBe(6);
    expect(oneLine(down.stderr)).toEqual([expect.stringMatching(/^error: network — GET \/v1\/presence\/me: could not reach/)]);
    expect(down.stderr).not.toContain('    at ');

    const debug = await runPresence(['me'], env({ PRESENCE_TOKEN: 'prs_live_nope', PRESENCE_DEBUG: '1' }));
    expect(debug.code).toBe(3);
    expect(debug.stderr).toContain('debug: GET /v1/presence/me → 401');
    expect(debug.stderr).toContain('    at ');
  });

  it('events tails as NDJSON with --json and resumes after a dropped connection', async () => {
    const proxy = await startProxy(s.url);
    try {
      const { latest: base } = await s.core.events.bounds({ accountId: 'default', kind: 'live' });
      const child = spawnPresence(
        ['events', '--json', '--since', String(base), '--limit', '4'],
        env({ PRESENCE_TOKEN: s.live, PRESENCE_URL: proxy.url }),
      );
      const emit = (i: number) =>
        s.core.events.emit({ accountId: 'default', kind: 'live' }, 'memory', { key: `topic:cli${i}`, tier: 'fading' });
      await emit(1);
      await emit(2);
      await waitFor(() => child.stdout.split('\n').filter(Boolean).length === 2, CHILD_START_MS);
      proxy.dropAll();
      await emit(3);
      await emit(4);
      const r = await child.exited;
      expect(r.code).toBe(0);
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.id)).toEqual([base + 1, base + 2, base + 3, base + 4]);
      expect(lines[0]).toMatchObject({ type: 'memory', data: { key: 'topic:cli1', tier: 'fading' } });
      expect(r.stderr).toMatch(/^reconnecting in \d+\.\d s/m);
      expect(oneLine(r.stderr)[0]).toBe(`connected to ${proxy.url}, waiting for events (Ctrl-C to stop)`);
      expect(r.stderr).toContain(`reconnected to ${proxy.url}\n`);
    } finally {
      await proxy.close();
    }
  });

  it('events says on stderr that it is connected before the first event; stdout stays data', async () => {
    // Live (no --since): only an event emitted after the line is certain to arrive, so the
    // line must mean the subscription is in place.
    const child = spawnPresence(['events', '--json', '--limit', '1'], env({ PRESENCE_TOKEN: s.live }));
    await waitFor(() => child.stderr.includes('\n'), CHILD_START_MS);
    expect(child.stderr).toBe(`connected to ${s.url}, waiting for events (Ctrl-C to stop)\n`);
    expect(child.stdout).toBe('');
    await s.core.events.emit({ accountId: 'default', kind: 'live' }, 'memory', { key: 'topic:after-connected', tier: 'fading' });
    const r = await child.exited;
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'memory', data: { key: 'topic:after-connected' } });
    expect(r.stderr).toBe(`connected to ${s.url}, waiting for events (Ctrl-C to stop)\n`);
  });

  it('events prints one aligned line per event for people', async () => {
    const { latest: base } = await s.core.events.bounds({ accountId: 'default', kind: 'live' });
    await s.core.events.emit({ accountId: 'default', kind: 'live' }, 'memory', { key: 'topic:human', tier: 'pinned' });
    const r = await runPresence(['events', '--since', String(base), '--limit', '1'], env({ PRESENCE_TOKEN: s.live }));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^#${base + 1}\\s+\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\s+memory\\s+key=topic:human tier=pinned\\n$`),
    );
  });
});

/** A loopback port with nothing listening (not one fetch refuses outright, like 9). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** Runs the bin with extra node flags; stdout is destroyed at once when `closeStdout`. */
function runNode(nodeArgs: string[], args: string[], extraEnv: Record<string, string | undefined>, closeStdout = false) {
  const proc = spawn(process.execPath, [...nodeArgs, bin, ...args], { env: cleanEnv(extraEnv), stdio: ['pipe', 'pipe', 'pipe'] });
  if (closeStdout) proc.stdout.destroy(); // the reader is gone before the first write, as with `| head -c 0`
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d) => {
    stdout += d;
  });
  proc.stderr.on('data', (d) => {
    stderr += d;
  });
  const timer = setTimeout(() => proc.kill('SIGKILL'), 45_000);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('presence CLI edges', () => {
  it('a corrupt config file: a command the environment configures ignores it; logout removes it; login replaces it', async () => {
    const e = env();
    mkdirSync(path.dirname(configFile()), { recursive: true, mode: 0o700 });
    writeFileSync(configFile(), '{ not json', { mode: 0o600 });

    const withEnv = await runPresence(['me', '--json'], { ...e, PRESENCE_TOKEN: s.live });
    expect([withEnv.code, withEnv.stderr]).toEqual([0, '']);
    expect(JSON.parse(withEnv.stdout).mode).toBe('live');

    // Without PRESENCE_TOKEN the file is the only key there is: its error stands, one line.
    const without = await runPresence(['me'], e);
    expect(without.code).toBe(1);
    expect(oneLine(without.stderr)).toEqual([
      expect.stringMatching(/^error: config — .*config\.json is not valid JSON; fix it or run `node bin\/presence\.js logout`$/),
    ]);

    const out = await runPresence(['logout', '--json'], e);
    expect([out.code, out.stderr]).toEqual([0, '']);
    expect(JSON.parse(out.stdout)).toEqual({ logged_out: true, config: configFile() });
    expect(existsSync(configFile())).toBe(false);
    const again = await runPresence(['logout', '--json'], e);
    expect(JSON.parse(again.stdout)).toEqual({ logged_out: false, config: configFile() });

    writeFileSync(configFile(), '["not", "a", "login"]', { mode: 0o600 });
    const login = await runPresence(['login', '--key', s.live, '--json'], e);
    expect(login.code).toBe(0);
    expect(oneLine(login.stderr)).toEqual([expect.stringMatching(/^note: ignoring the saved login: .*config\.json does not hold/)]);
    expect(JSON.parse(login.stdout)).toMatchObject({ url: s.url, mode: 'live', config: configFile() });
    expect(JSON.parse(readFileSync(configFile(), 'utf8'))).toEqual({ url: s.url, token: s.live });
  });

  it('a closed stdout (presence --help | head) ends quietly: exit 0, nothing on stderr', async () => {
    const r = await runNode([], ['--help'], env(), true);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('an uncaught rejection is one error line and exit 1; the stack only with PRESENCE_DEBUG=1', async () => {
    // A rejection nobody handles, raised while `chat` waits for a line on stdin: as soon as the
    // CLI has installed its guards (a positive signal, not a guess at how long loading takes).
    const dir = tempDir('presence-cli-hook-');
    const hook = path.join(dir, 'reject.mjs');
    writeFileSync(
      hook,
      "const t = setInterval(() => { if (process.listenerCount('unhandledRejection') > 0) { clearInterval(t); Promise.reject(new Error('boom\\nsecond line')); } }, 10);\n",
    );
    const r = await runNode(['--import', hook], ['chat'], env({ PRESENCE_TOKEN: s.live }));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: internal — boom\n');
    const debug = await runNode(['--import', hook], ['chat'], env({ PRESENCE_TOKEN: s.live, PRESENCE_DEBUG: '1' }));
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/^error: internal — boom\nError: boom\nsecond line\n\s+at /);
  });

  it('usage errors are one line with exit 2, and confirm --approve without an id is one of them', async () => {
    const e = env({ PRESENCE_TOKEN: s.live });
    const typo = await runPresence(['mee'], e);
    expect(typo.code).toBe(2);
    expect(oneLine(typo.stderr)).toEqual(["error: usage — unknown command 'mee' (Did you mean me?) (see --help)"]);
    const missing = await runPresence(['memory', 'pin'], e);
    expect([missing.code, oneLine(missing.stderr)]).toEqual([2, ["error: usage — missing required argument 'key' (see --help)"]]);

    for (const flag of ['--approve', '--deny']) {
      const r = await runPresence(['confirm', flag], e);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe(''); // not a listing that looks like success
      expect(oneLine(r.stderr)).toEqual([
        `error: usage — ${flag} needs the confirm id: node bin/presence.js confirm <id> --approve|--deny`,
      ]);
    }
    const listApprove = await runPresence(['confirm', 'list', '--approve'], e);
    expect(listApprove.code).toBe(2);
  });

  it('events against a server that is not there gives up after a few attempts with the network exit code', async () => {
    const port = await closedPort();
    const r = await runPresence(['events'], env({ PRESENCE_TOKEN: s.live, PRESENCE_URL: `http://127.0.0.1:${port}` }));
    expect(r.code).toBe(6);
    const lines = oneLine(r.stderr);
    expect(lines.filter((l) => l.startsWith('reconnecting in '))).toHaveLength(4);
    expect(lines.at(-1)).toMatch(/^error: network — GET \/v1\/events: could not reach .*; gave up after 5 attempts$/);
  });
});
