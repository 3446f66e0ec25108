import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BotsConfigError, loadBotsConfig } from './config';

describe('loadBotsConfig', () => {
  it('needs at least one bot token, and says so without quoting anything secret', () => {
    expect(() => loadBotsConfig({})).toThrow(BotsConfigError);
    expect(() => loadBotsConfig({ TELEGRAM_BOT_TOKEN: '  ' })).toThrow(/TELEGRAM_BOT_TOKEN and\/or DISCORD_BOT_TOKEN/);
  });

  it('turns on only the bots whose token is set, with defaults for the rest', () => {
    const c = loadBotsConfig({ TELEGRAM_BOT_TOKEN: 't0k3n', INIT_CWD: '/srv/presence' });
    expect(c).toEqual({
      presenceUrl: 'http://127.0.0.1:8787',
      dataDir: path.resolve('/srv/presence/.presence-bots'),
      telegram: { token: 't0k3n', apiRoot: 'https://api.telegram.org', webhook: null },
      discord: null,
      surfaceToken: null,
      databaseUrl: null,
    });
    const d = loadBotsConfig({ DISCORD_BOT_TOKEN: 'd', DISCORD_API_ROOT: 'http://127.0.0.1:9/api/', PRESENCE_URL: 'http://10.0.0.1:8787' });
    expect(d.discord).toEqual({ token: 'd', apiRoot: 'http://127.0.0.1:9/api', shards: null });
    expect(d.telegram).toBeNull();
    expect(d.presenceUrl).toBe('http://10.0.0.1:8787');
  });

  it('takes a surface token (PRESENCE_SURFACE_TOKEN), and refuses one of the wrong shape without quoting it', () => {
    const token = `prs_surface_${'a'.repeat(40)}`;
    expect(loadBotsConfig({ TELEGRAM_BOT_TOKEN: 't', PRESENCE_SURFACE_TOKEN: token }).surfaceToken).toBe(token);
    expect(() => loadBotsConfig({ TELEGRAM_BOT_TOKEN: 't', PRESENCE_SURFACE_TOKEN: 'prs_live_oops' })).toThrow(/PRESENCE_SURFACE_TOKEN/);
    try {
      loadBotsConfig({ TELEGRAM_BOT_TOKEN: 't', PRESENCE_SURFACE_TOKEN: 'prs_live_oops' });
    } catch (e) {
      expect(String(e)).not.toContain('oops');
    }
  });

  it("keeps the bots' table in PostgreSQL only with a surface token", () => {
    const token = `prs_surface_${'a'.repeat(40)}`;
    const url = 'postgres://bots@127.0.0.1:5432/bots';
    expect(loadBotsConfig({ TELEGRAM_BOT_TOKEN: 't', PRESENCE_SURFACE_TOKEN: token, PRESENCE_BOTS_DATABASE_URL: url }).databaseUrl).toBe(
      url,
    );
    expect(() => loadBotsConfig({ TELEGRAM_BOT_TOKEN: 't', PRESENCE_BOTS_DATABASE_URL: url })).toThrow(/needs PRESENCE_SURFACE_TOKEN/);
  });

  it('serves a Telegram webhook with a URL and a secret together, on PRESENCE_BOTS_PORT', () => {
    const env = { TELEGRAM_BOT_TOKEN: 't', TELEGRAM_WEBHOOK_URL: 'https://bots.example/tg', TELEGRAM_WEBHOOK_SECRET: 's'.repeat(32) };
    expect(loadBotsConfig(env).telegram?.webhook).toEqual({
      url: 'https://bots.example/tg',
      secret: 's'.repeat(32),
      port: 8788,
      host: '127.0.0.1',
    });
    expect(loadBotsConfig({ ...env, PRESENCE_BOTS_PORT: '9000' }).telegram?.webhook?.port).toBe(9000);
    expect(() => loadBotsConfig({ ...env, TELEGRAM_WEBHOOK_SECRET: '' })).toThrow(/go together/);
    expect(() => loadBotsConfig({ ...env, TELEGRAM_WEBHOOK_SECRET: 'short' })).toThrow(/TELEGRAM_WEBHOOK_SECRET/);
  });

  it('splits the Discord gateway with DISCORD_SHARDS and DISCORD_SHARD_IDS', () => {
    const shards = (env: Record<string, string>) => loadBotsConfig({ DISCORD_BOT_TOKEN: 'd', ...env }).discord?.shards;
    expect(shards({ DISCORD_SHARDS: 'auto' })).toEqual({ count: 'auto', ids: null });
    expect(shards({ DISCORD_SHARDS: '4', DISCORD_SHARD_IDS: '0, 2' })).toEqual({ count: 4, ids: [0, 2] });
    expect(() => shards({ DISCORD_SHARDS: '2', DISCORD_SHARD_IDS: '2' })).toThrow(/DISCORD_SHARD_IDS/);
    expect(() => shards({ DISCORD_SHARDS: 'many' })).toThrow(/DISCORD_SHARDS/);
  });

  it('rejects an address that is not http(s)', () => {
    expect(() => loadBotsConfig({ TELEGRAM_BOT_TOKEN: 'secret-token', PRESENCE_URL: 'ftp://x' })).toThrow(/invalid PRESENCE_URL/);
    try {
      loadBotsConfig({ TELEGRAM_BOT_TOKEN: 'secret-token', TELEGRAM_API_ROOT: 'nope' });
    } catch (e) {
      expect(String(e)).not.toContain('secret-token');
    }
  });
});
