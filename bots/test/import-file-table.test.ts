// Moving from the file table to PostgreSQL: the first start with PRESENCE_BOTS_DATABASE_URL
// copies the file table's users in (links.jsonl, or an earlier version's links.json), handing
// keys kept the old way to the surface token first, so the database never holds a secret and
// the moved users are acted for by key id.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createPresenceClient } from '@presence/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../../scripts/postgres';
import { createLogger } from '../src/log';
import { importFileTable } from '../src/surface/import-file-table';
import { replayLinkLog } from '../src/surface/link-log';
import { LEGACY_LINKS_FILE, LINKS_FILE, openLinkStore } from '../src/surface/link-store';
import { openPgLinkStore } from '../src/surface/pg-link-store';
import { type Presence, removeDir, startPresence, tempDir } from './helpers/presence';

let presence: Presence;
let pg: ThrowawayPostgres;
const dataDir = tempDir('presence-bots-import-');
const legacyDir = tempDir('presence-bots-import-legacy-');

beforeAll(async () => {
  presence = await startPresence();
  pg = await startPostgres();
}, 120_000);

afterAll(async () => {
  await presence?.close();
  await pg?.stop();
  removeDir(dataDir);
  removeDir(legacyDir);
});

describe('importFileTable', () => {
  it('copies the users of the file table (links.jsonl), kept keys moved over to the surface token first', async () => {
    const token = (await presence.server.core.surfaces!.create('telegram-import')).token;
    const bot = createPresenceClient({ baseUrl: presence.server.url, token });
    const old = await presence.admin.links.redeem((await presence.admin.links.create()).code, {
      surface: 'telegram',
      user_id: '1',
      name: 'old',
    });
    const viaSurface = await bot.surface.redeem((await presence.admin.links.create()).code, {
      surface: 'telegram',
      user_id: '2',
      name: 'new',
    });
    const file = await openLinkStore(dataDir);
    const base = {
      surface: 'telegram' as const,
      account: 'default',
      scopes: old.scopes,
      home_chat: null,
      linked_at: new Date().toISOString(),
    };
    await file.link(
      'telegram:1',
      { ...base, user_id: '1', name: 'old', key_id: old.key_id, key_name: old.name, last_event_id: 5 },
      old.key,
    );
    await file.link(
      'telegram:2',
      { ...base, user_id: '2', name: 'new', key_id: viaSurface.key_id, key_name: viaSurface.name, last_event_id: 0 },
      null,
    );
    await file.close();

    const table = await openPgLinkStore(await pg.createDatabase());
    try {
      await importFileTable({ dataDir, into: table, client: bot, log: createLogger(() => undefined) });
      expect(table.list().map((l) => [l.user_id, l.key_id, l.last_event_id, l.sealed_key])).toEqual(
        expect.arrayContaining([
          ['1', old.key_id, 5, undefined],
          ['2', viaSurface.key_id, 0, undefined],
        ]),
      );
      // The old key is the surface's now: acted for by id.
      expect((await bot.as(old.key_id).presence.me()).name).toBeTypeOf('string');
      // The file is left as it was; a second start copies nothing again.
      expect(readFileSync(path.join(dataDir, LINKS_FILE), 'utf8')).toContain('sealed_key');
      await importFileTable({ dataDir, into: table, client: bot, log: createLogger(() => undefined) });
      expect(table.list()).toHaveLength(2);
    } finally {
      await table.close();
    }
  });

  it("copies the users of an earlier version's links.json, read through the file store", async () => {
    const token = (await presence.server.core.surfaces!.create('telegram-import-legacy')).token;
    const bot = createPresenceClient({ baseUrl: presence.server.url, token });
    const old = await presence.admin.links.redeem((await presence.admin.links.create()).code, {
      surface: 'telegram',
      user_id: '7',
      name: 'older',
    });
    const file = await openLinkStore(legacyDir);
    await file.link(
      'telegram:7',
      {
        surface: 'telegram',
        user_id: '7',
        name: 'older',
        account: 'default',
        key_id: old.key_id,
        key_name: old.name,
        scopes: old.scopes,
        home_chat: null,
        linked_at: new Date().toISOString(),
        last_event_id: 3,
      },
      old.key,
    );
    await file.close();
    // As an earlier version left it: one document, sealed with the same links.key.
    const { links } = replayLinkLog(readFileSync(path.join(legacyDir, LINKS_FILE), 'utf8'));
    writeFileSync(path.join(legacyDir, LEGACY_LINKS_FILE), JSON.stringify({ version: 1, links, cards: {} }), { mode: 0o600 });
    rmSync(path.join(legacyDir, LINKS_FILE));

    const table = await openPgLinkStore(await pg.createDatabase());
    try {
      await importFileTable({ dataDir: legacyDir, into: table, client: bot, log: createLogger(() => undefined) });
      expect(table.list().map((l) => [l.user_id, l.key_id, l.last_event_id, l.sealed_key])).toEqual([['7', old.key_id, 3, undefined]]);
      expect((await bot.as(old.key_id).presence.me()).name).toBeTypeOf('string');
      // Carried over on the way, its users kept.
      expect(existsSync(path.join(legacyDir, LEGACY_LINKS_FILE))).toBe(false);
      expect(Object.keys(replayLinkLog(readFileSync(path.join(legacyDir, LINKS_FILE), 'utf8')).links)).toEqual(['telegram:7']);
    } finally {
      await table.close();
    }
  });
});
