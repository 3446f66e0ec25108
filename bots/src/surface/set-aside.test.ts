// Records read back that do not fit their schema: the bot still starts with every other
// record, each misfit is logged with its line (links.jsonl) or record (links.json) and what is
// wrong with it, and its line is kept in links.rejected.jsonl before links.jsonl is rewritten
// without it. A torn last line is still cut, unreported.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cardRecord, userRecord } from '../../test/helpers/records';
import { useTempDirs } from '../../test/helpers/temp-dirs';
import { LEGACY_LINKS_FILE, LINKS_FILE, openLinkStore } from './link-store';
import { REJECTED_FILE } from './set-aside';

const tmp = useTempDirs('presence-bots-misfit-');
type Logged = { level: string; message: string; fields?: Record<string, unknown> };
const logTo = (out: Logged[]) => (level: string, message: string, fields?: Record<string, unknown>) => out.push({ level, message, fields });
const misfitsIn = (logged: Logged[]) => logged.filter((l) => l.level === 'warn' && l.message.includes('does not fit its schema'));
const line = (v: unknown) => JSON.stringify(v);
const linkLine = (i: number) => line({ k: 'link', id: `telegram:${i}`, v: userRecord(i) });

describe('records that do not fit their schema', () => {
  it('in links.jsonl: the rest loads, each is logged with its line number and kept aside, and links.jsonl is rewritten without them', async () => {
    const dir = tmp();
    const noScopes = line({ k: 'link', id: 'telegram:2', v: { ...userRecord(2), scopes: 'talk' } });
    const badCard = line({
      k: 'card',
      id: 'telegram:1|cf_1',
      v: { ...cardRecord('cf_1', '7', { owner: 'telegram:1' }), updated_at: 1, state: 'shown' },
    });
    const lastOne = line({ k: 'cursor', v: 'nine' });
    const text = [linkLine(1), noScopes, linkLine(3), badCard, line({ k: 'cursor', v: 4 }), lastOne].join('\n');
    writeFileSync(path.join(dir, LINKS_FILE), `${text}\n`);
    const logged: Logged[] = [];
    const store = await openLinkStore(dir, { log: logTo(logged) });
    expect(store.list().map((l) => l.user_id)).toEqual(['1', '3']);
    expect(store.surfaceCursor()).toBe(4);
    const warned = misfitsIn(logged);
    expect(warned.map((l) => l.fields?.line)).toEqual([2, 4, 6]);
    expect(warned[0]?.fields?.problem).toMatch(/^v\.scopes: /);
    expect(warned[1]?.fields?.problem).toMatch(/^v\.state: /);
    expect(readFileSync(path.join(dir, REJECTED_FILE), 'utf8')).toBe(`${noScopes}\n${badCard}\n${lastOne}\n`);
    expect(statSync(path.join(dir, REJECTED_FILE)).mode & 0o777).toBe(0o600);
    // Rewritten at open to what loaded: a misfit is not read (and reported) again at every start.
    expect(readFileSync(path.join(dir, LINKS_FILE), 'utf8')).not.toContain('telegram:2');
    await store.close();
    const quiet: Logged[] = [];
    await (await openLinkStore(dir, { log: logTo(quiet) })).close();
    expect(quiet).toEqual([]);
  });

  it('a torn last line is still cut without a report', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, LINKS_FILE), `${linkLine(1)}\n${linkLine(2).slice(0, 40)}`);
    const logged: Logged[] = [];
    const store = await openLinkStore(dir, { log: logTo(logged) });
    expect(store.list()).toHaveLength(1);
    expect(misfitsIn(logged)).toEqual([]);
    await store.close();
  });

  it("in an earlier version's links.json: the rest is carried over, each is logged by its record and kept aside as the line that would restore it", async () => {
    const dir = tmp();
    const links = { 'telegram:1': userRecord(1), 'telegram:2': { ...userRecord(2), key_id: 42 } };
    const cards = { 'telegram:1|cf_1': { ...cardRecord('cf_1', '7', { owner: 'telegram:1' }), updated_at: 1, messages: [{ chatId: 1 }] } };
    writeFileSync(path.join(dir, LEGACY_LINKS_FILE), JSON.stringify({ version: 1, links, cards }));
    const logged: Logged[] = [];
    const store = await openLinkStore(dir, { log: logTo(logged) });
    expect(store.list().map((l) => l.user_id)).toEqual(['1']);
    expect(store.card('telegram:1', 'cf_1')).toBeUndefined();
    const warned = misfitsIn(logged);
    expect(warned.map((l) => l.fields?.record)).toEqual(['link telegram:2', 'card telegram:1|cf_1']);
    const kept = readFileSync(path.join(dir, REJECTED_FILE), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(kept).toEqual([
      { k: 'link', id: 'telegram:2', v: links['telegram:2'] },
      { k: 'card', id: 'telegram:1|cf_1', v: cards['telegram:1|cf_1'] },
    ]);
    await store.close();
  });
});
