import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  it('has a working default for everything', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PRESENCE_HOST: '127.0.0.1',
      PRESENCE_PORT: 8787,
      PRESENCE_CHAIN: 'devnet',
      PRESENCE_RATE_LIMIT: { limit: 120, windowMs: 60_000 },
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
  ])('names %s when its value %j is bad, in one line', (name, value) => {
    try {
      loadConfig({ [name]: value });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as Error).message).toMatch(new RegExp(`^invalid ${name}=`));
      expect((e as Error).message).not.toContain('\n');
    }
  });

  it('a real network needs an RPC URL', () => {
    expect(() => loadConfig({ PRESENCE_CHAIN: 'base' })).toThrow(/PRESENCE_RPC_URL: required when PRESENCE_CHAIN=base/);
    expect(loadConfig({ PRESENCE_CHAIN: 'base', PRESENCE_RPC_URL: 'https://rpc.example' }).PRESENCE_RPC_URL).toBe('https://rpc.example');
  });
});
