import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, ConfigSchema, isSecretVariable, loadConfig } from './config';

/** The Base mainnet token list core ships: a real, valid list. */
const CHAIN_DIR = path.join(path.dirname(createRequire(import.meta.url).resolve('@presence/core/package.json')), 'src/chain');
const BASE_LIST = path.join(CHAIN_DIR, 'lists/base-mainnet.json');
const realNetwork = { PRESENCE_CHAIN: 'base', PRESENCE_RPC_URL: 'https://rpc.example' };

describe('loadConfig', () => {
  it('has a working default for everything', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PRESENCE_HOST: '127.0.0.1',
      PRESENCE_PORT: 8787,
      PRESENCE_CHAIN: 'devnet',
      PRESENCE_RATE_LIMIT: { limit: 120, windowMs: 60_000 },
      PRESENCE_AUTH_FAIL_LIMIT: { limit: 60, windowMs: 60_000 },
      PRESENCE_MAX_STREAMS_PER_KEY: 20,
      PRESENCE_MAX_STREAMS_PER_ACCOUNT: 100,
      PRESENCE_DATABASE_POOL: 10,
    });
    expect(c.PRESENCE_DATA_DIR).toMatch(/\.presence$/);
  });

  it.each([
    ['PRESENCE_PORT', '70000'],
    ['PRESENCE_HOST', 'example.com'],
    ['PRESENCE_RATE_LIMIT', '10 per minute'],
    ['PRESENCE_MASTER_KEY', 'abc'],
    ['PRESENCE_RPC_URL', 'ftp://x'],
    ['PRESENCE_LOG_LEVEL', 'loud'],
    ['PRESENCE_AUTH_FAIL_LIMIT', '60'],
    ['PRESENCE_MAX_STREAMS_PER_KEY', '0'],
    ['PRESENCE_MAX_STREAMS_PER_ACCOUNT', 'many'],
    ['PRESENCE_MAX_STREAMS', '-5'],
    ['PRESENCE_MAX_CONNECTIONS', '1e4'],
    ['PRESENCE_LOG_FORMAT', 'text'],
    ['PRESENCE_DATABASE_POOL', '2'],
    ['PRESENCE_DATABASE_POOL', 'ten'],
    ['PRESENCE_REQUEST_TIMEOUT', '30'],
    ['PRESENCE_REQUEST_TIMEOUT', '0s'],
    ['PRESENCE_MAX_CONNECTIONS_PER_ADDRESS', '5000'],
    ['PRESENCE_TRUSTED_PROXIES', '10.0.0.0/33'],
    ['PRESENCE_TRUSTED_PROXIES', 'proxy.example'],
  ])('names %s when its value %j is bad, in one line', (name, value) => {
    try {
      loadConfig({ [name]: value });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as Error).message).toMatch(new RegExp(`^invalid ${name}[= ]`));
      expect((e as Error).message).not.toContain('\n');
    }
  });

  it("says what PRESENCE_HOST and an empty PRESENCE_DATA_DIR take, not zod's bare words", () => {
    expect(() => loadConfig({ PRESENCE_HOST: 'example.com' })).toThrow(
      'invalid PRESENCE_HOST="example.com": an IP address (127.0.0.1, 0.0.0.0, ::) or localhost',
    );
    expect(() => loadConfig({ PRESENCE_DATA_DIR: '' })).toThrow('invalid PRESENCE_DATA_DIR="": a directory path (unset: ./.presence)');
  });

  // `NAME=` with nothing after it (an EnvironmentFile line left to fill in, a substitution that
  // came out empty) is refused for every variable, lists included: never read as unset.
  it.each(Object.keys(ConfigSchema.shape))('refuses %s set but empty, naming it and saying what it takes', (name) => {
    try {
      loadConfig({ [name]: '' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const message = (e as Error).message;
      expect(message).toMatch(new RegExp(`^invalid ${name}(="": | \\(value not shown: it is a secret\\): )\\S`));
      if (isSecretVariable(name)) expect(message).not.toContain('=""');
      expect(message).not.toMatch(/Too small|Invalid input/);
      expect(message).toMatch(/\(it is set but empty: unset it for the default\)$/);
    }
  });

  it('names a bad value of a count, a cap per key included, and never the value of a secret', () => {
    expect(() => loadConfig({ PRESENCE_MAX_STREAMS_PER_KEY: 'lots' })).toThrow(/^invalid PRESENCE_MAX_STREAMS_PER_KEY="lots": /);
    expect(() => loadConfig({ PRESENCE_MASTER_KEY: 'lots' })).toThrow(/^invalid PRESENCE_MASTER_KEY \(value not shown: it is a secret\): /);
  });

  it('bounds connections by the open-file limit, and streams below connections', () => {
    expect(loadConfig({}, 20_000)).toMatchObject({ PRESENCE_MAX_CONNECTIONS: 2000, PRESENCE_MAX_STREAMS: 1000 });
    expect(loadConfig({ PRESENCE_MAX_STREAMS: '50', PRESENCE_MAX_CONNECTIONS: '300' }, 1024)).toMatchObject({
      PRESENCE_MAX_CONNECTIONS: 300,
      PRESENCE_MAX_STREAMS: 50,
    });
    expect(() => loadConfig({ PRESENCE_MAX_CONNECTIONS: '5000' }, 4096)).toThrow(ConfigError);
    expect(() => loadConfig({ PRESENCE_MAX_CONNECTIONS: '5000' }, 4096)).toThrow(/^invalid PRESENCE_MAX_CONNECTIONS=5000: .*ulimit -n/);
  });

  it('reads the request timeout, the per-address connection cap and the trusted proxies', () => {
    expect(loadConfig({}, 20_000)).toMatchObject({
      PRESENCE_REQUEST_TIMEOUT: 30_000,
      PRESENCE_MAX_CONNECTIONS_PER_ADDRESS: 100,
      PRESENCE_TRUSTED_PROXIES: [],
    });
    const c = loadConfig(
      { PRESENCE_REQUEST_TIMEOUT: '500ms', PRESENCE_MAX_CONNECTIONS_PER_ADDRESS: '8', PRESENCE_TRUSTED_PROXIES: '10.0.0.5, fd00::/8' },
      20_000,
    );
    expect(c.PRESENCE_REQUEST_TIMEOUT).toBe(500);
    expect(c.PRESENCE_MAX_CONNECTIONS_PER_ADDRESS).toBe(8);
    expect(c.PRESENCE_TRUSTED_PROXIES).toEqual([
      { address: '10.0.0.5', prefix: 32, family: 'ipv4' },
      { address: 'fd00::', prefix: 8, family: 'ipv6' },
    ]);
  });

  it.each(['', ' 80', '0x50', '1e3', '80.0', '-1', '+80', '65536', '123456'])(
    'refuses PRESENCE_PORT=%j (digits only, 0-65535)',
    (value) => {
      expect(() => loadConfig({ PRESENCE_PORT: value })).toThrow(/^invalid PRESENCE_PORT=/);
    },
  );

  it('takes a port written in digits, 0 included (a free one)', () => {
    expect(loadConfig({ PRESENCE_PORT: '0' }).PRESENCE_PORT).toBe(0);
    expect(loadConfig({ PRESENCE_PORT: '65535' }).PRESENCE_PORT).toBe(65_535);
    expect(loadConfig({ PRESENCE_PORT: '08080' }).PRESENCE_PORT).toBe(8080);
  });

  it.each([
    ['PRESENCE_MASTER_KEY', 'deadbeefsecret'],
    ['PRESENCE_LLM_API_KEY', ''],
    ['PRESENCE_RPC_URL', 'base-mainnet.example/v2/sk_abc123'],
    ['PRESENCE_LLM_BASE_URL', 'notaurl?key=sk_abc123'],
  ])('never echoes the value of the secret %s', (name, value) => {
    try {
      loadConfig({ [name]: value });
      expect.unreachable();
    } catch (e) {
      const message = (e as Error).message;
      expect(message).toMatch(new RegExp(`^invalid ${name} \\(value not shown`));
      if (value) expect(message).not.toContain(value);
    }
  });

  it('takes browser origins for CORS, comma-separated, none by default; a bad one is named', () => {
    expect(loadConfig({}).PRESENCE_CORS_ORIGINS).toEqual([]);
    expect(
      loadConfig({ PRESENCE_CORS_ORIGINS: 'https://app.example.com, http://localhost:5173,chrome-extension://abcdefgh' })
        .PRESENCE_CORS_ORIGINS,
    ).toEqual(['https://app.example.com', 'http://localhost:5173', 'chrome-extension://abcdefgh']);
    for (const bad of ['https://app.example.com/', 'app.example.com', 'https://app.example.com/path', '*', 'ftp://x.example']) {
      expect(() => loadConfig({ PRESENCE_CORS_ORIGINS: bad })).toThrow(/^invalid PRESENCE_CORS_ORIGINS=.* is not an origin/);
    }
  });

  it('takes a public origin for passkey pages (a host name, no path); unset, it is decided once the port is known', () => {
    expect(loadConfig({}).PRESENCE_PUBLIC_URL).toBeUndefined();
    expect(loadConfig({ PRESENCE_PUBLIC_URL: 'https://presence.example.com' }).PRESENCE_PUBLIC_URL).toBe('https://presence.example.com');
    expect(loadConfig({ PRESENCE_PUBLIC_URL: 'http://localhost:8787' }).PRESENCE_PUBLIC_URL).toBe('http://localhost:8787');
    for (const bad of [
      'https://presence.example.com/app',
      'http://127.0.0.1:8787',
      'http://[::1]:8787',
      'presence.example.com',
      'ftp://x.example',
    ]) {
      expect(() => loadConfig({ PRESENCE_PUBLIC_URL: bad }), bad).toThrow(/PRESENCE_PUBLIC_URL/);
    }
  });

  it('takes a metrics token of 16+ printable characters; a bad one is named, never echoed', () => {
    expect(loadConfig({}).PRESENCE_METRICS_TOKEN).toBeUndefined();
    expect(loadConfig({ PRESENCE_METRICS_TOKEN: 'a'.repeat(32) }).PRESENCE_METRICS_TOKEN).toBe('a'.repeat(32));
    for (const bad of ['short-secret', 'has a space in it ok?']) {
      let message = '';
      try {
        loadConfig({ PRESENCE_METRICS_TOKEN: bad });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/^invalid PRESENCE_METRICS_TOKEN \(value not shown: it is a secret\)/);
      expect(message).not.toContain(bad);
    }
  });

  it('takes a log format, pretty or json; unset leaves the choice to the process (a terminal or not)', () => {
    expect(loadConfig({ PRESENCE_LOG_FORMAT: 'json' }).PRESENCE_LOG_FORMAT).toBe('json');
    expect(loadConfig({ PRESENCE_LOG_FORMAT: 'pretty' }).PRESENCE_LOG_FORMAT).toBe('pretty');
    expect(loadConfig({}).PRESENCE_LOG_FORMAT).toBeUndefined();
  });

  it('resolves relative paths against where the command was typed (npm keeps it in INIT_CWD), not the workspace npm runs in', () => {
    const root = path.resolve('/home/ada/presence');
    // `npm start` typed at the repository root and `npx presence-server` typed there find one data directory.
    expect(loadConfig({ INIT_CWD: root }).PRESENCE_DATA_DIR).toBe(path.join(root, '.presence'));
    const c = loadConfig({
      INIT_CWD: CHAIN_DIR,
      PRESENCE_DATA_DIR: './mydata',
      ...realNetwork,
      PRESENCE_TOKEN_LIST: 'lists/base-mainnet.json',
    });
    expect([c.PRESENCE_DATA_DIR, c.PRESENCE_TOKEN_LIST]).toEqual([path.join(CHAIN_DIR, 'mydata'), BASE_LIST]);
    expect(loadConfig({ INIT_CWD: root, PRESENCE_DATA_DIR: '/srv/presence' }).PRESENCE_DATA_DIR).toBe(path.resolve('/srv/presence'));
    // Run without npm: the process's own directory.
    expect(loadConfig({ PRESENCE_DATA_DIR: 'mydata' }).PRESENCE_DATA_DIR).toBe(path.resolve('mydata'));
  });

  it('a real network needs an RPC URL', () => {
    expect(() => loadConfig({ PRESENCE_CHAIN: 'base' })).toThrow(/PRESENCE_RPC_URL: required when PRESENCE_CHAIN=base/);
    expect(loadConfig({ ...realNetwork, PRESENCE_TOKEN_LIST: BASE_LIST }).PRESENCE_RPC_URL).toBe('https://rpc.example');
  });

  describe('PRESENCE_TOKEN_LIST, checked like its twin PRESENCE_RPC_URL', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'token-list-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const file = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };

    it('is required on a real network (only devnet deploys its own tokens)', () => {
      expect(() => loadConfig(realNetwork)).toThrow(/^invalid PRESENCE_TOKEN_LIST: required when PRESENCE_CHAIN=base/);
    });

    it.each([
      ['a file that is not there', () => path.join(dir, 'missing.json'), /no such file/],
      ['a file that is not JSON', () => file('broken.json', '{"chain":'), /is not valid JSON/],
      [
        'JSON that is not a token list',
        () => file('wrong.json', JSON.stringify({ chain: { id: 8453, name: 'base' } })),
        /is not a token list: dex/,
      ],
    ])('refuses %s in one line naming the variable', (_what, make, reason) => {
      const value = make();
      try {
        loadConfig({ ...realNetwork, PRESENCE_TOKEN_LIST: value });
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        expect((e as Error).message.startsWith(`invalid PRESENCE_TOKEN_LIST=${JSON.stringify(value)}: `)).toBe(true);
        expect((e as Error).message).toMatch(reason);
        expect((e as Error).message).not.toContain('\n');
      }
    });
  });

  it('a database URL selects PostgreSQL and needs a master key; a bad one is named, never echoed', () => {
    const key = 'ab'.repeat(32);
    const url = 'postgres://presence:pw123@db.internal:5432/presence';
    expect(loadConfig({}).PRESENCE_DATABASE_URL).toBeUndefined();
    expect(loadConfig({ PRESENCE_DATABASE_URL: url, PRESENCE_MASTER_KEY: key }).PRESENCE_DATABASE_URL).toBe(url);
    expect(() => loadConfig({ PRESENCE_DATABASE_URL: url })).toThrow(/^invalid PRESENCE_MASTER_KEY: required with PRESENCE_DATABASE_URL/);
    for (const bad of ['mysql://u:pw123@h/db', 'db.internal:5432/pw123', '']) {
      try {
        loadConfig({ PRESENCE_DATABASE_URL: bad, PRESENCE_MASTER_KEY: key });
        expect.unreachable();
      } catch (e) {
        expect((e as Error).message).toMatch(/^invalid PRESENCE_DATABASE_URL \(value not shown/);
        expect((e as Error).message).not.toContain('pw123');
        expect((e as Error).message).not.toContain('\n');
      }
    }
  });
});
