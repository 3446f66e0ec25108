// links.jsonl: a change appends a line (the same bytes however many users are kept), what was
// answered survives a kill (read from a copy of the files taken while the store runs, as a
// kill -9 leaves them), a torn last line is cut, links.json is carried over, and compaction
// keeps exactly the live records.
import { appendFileSync, copyFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cardRecord, userRecord } from '../../test/helpers/records';
import { useTempDirs } from '../../test/helpers/temp-dirs';
import { replayLinkLog } from './link-log';
import { COMPACT_FLOOR } from './link-log-file';
import { KEY_FILE, LEGACY_LINKS_FILE, LINKS_FILE, type LinkStore, openLinkStore } from './link-store';

const tmp = useTempDirs('presence-bots-log-');

const SECRET = 'prs_live_0123456789abcdef0123456789abcdef';
const card = (owner: string, confirmId: string, messageId: string) => cardRecord(confirmId, messageId, { owner, chatId: '1' });
const logOf = (dir: string) => path.join(dir, LINKS_FILE);
const linesOf = (dir: string) =>
  readFileSync(logOf(dir), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
/** The files as a kill -9 would leave them now (the lock aside: its process is gone). */
function crashCopy(dir: string) {
  const copy = tmp();
  for (const f of [LINKS_FILE, KEY_FILE]) copyFileSync(path.join(dir, f), path.join(copy, f));
  return copy;
}
async function withUsers(n: number, secret: string | null = null): Promise<{ dir: string; store: LinkStore }> {
  const dir = tmp();
  const store = await openLinkStore(dir);
  await Promise.all(Array.from({ length: n }, (_, i) => store.link(`telegram:${i}`, userRecord(i), secret)));
  return { dir, store };
}

describe('links.jsonl', () => {
  it('appends one line per change: the same bytes with 10 or 2,000 users linked, the file before left as it was', async () => {
    const grown: number[] = [];
    for (const n of [10, 2_000]) {
      const { dir, store } = await withUsers(n);
      await store.putCard(card('telegram:1', 'cf_000000000000000a', '1'));
      const before = readFileSync(logOf(dir), 'utf8');
      const inode = statSync(logOf(dir)).ino;
      await store.updateCard('telegram:1', 'cf_000000000000000a', { state: 'closed', outcome: { status: 'denied' } });
      await store.setLastEventId('telegram:1', 7);
      const after = readFileSync(logOf(dir), 'utf8');
      expect(after.startsWith(before)).toBe(true); // appended, not rewritten
      expect(statSync(logOf(dir)).ino).toBe(inode); // not replaced either
      expect(after.slice(before.length).split('\n')).toHaveLength(3); // two lines and the last newline
      grown.push(after.length - before.length);
      await store.close();
    }
    expect(grown[0]).toBe(grown[1]);
    expect(grown[0]).toBeLessThan(1_500);
  });

  it('keeps every answered change across a kill, and a reopen sees them all', async () => {
    const { dir, store } = await withUsers(3, SECRET);
    await store.setHomeChat('telegram:0', '900');
    await store.setLastEventId('telegram:0', 12);
    await store.setSurfaceCursor(40);
    await store.putCard(card('telegram:0', 'cf_000000000000000a', '5'));
    await store.updateCard('telegram:0', 'cf_000000000000000a', { messages: [{ chatId: '1', messageId: '6' }] });
    await store.dropSecret('telegram:1');
    await store.unlink('telegram:2');
    const again = await openLinkStore(crashCopy(dir));
    expect(again.get('telegram:0')).toMatchObject({ home_chat: '900', last_event_id: 12 });
    expect(again.keyOf('telegram:0')).toBe(SECRET);
    expect(again.get('telegram:1')?.sealed_key).toBeUndefined();
    expect(again.get('telegram:2')).toBeUndefined();
    expect(again.surfaceCursor()).toBe(40);
    expect(again.cardAt({ chatId: '1', messageId: '6' })?.confirm_id).toBe('cf_000000000000000a');
    expect(again.ownerOfKey('key_0')).toBe('telegram:0');
    await again.close();
    await store.close();
  });

  it('cuts a line torn by a crash mid-write and carries on from the last whole one', async () => {
    const { dir, store } = await withUsers(2);
    await store.setLastEventId('telegram:0', 5);
    const copy = crashCopy(dir);
    await store.close();
    appendFileSync(logOf(copy), '{"k":"link","id":"telegram:0","v":{"surface":"tel');
    const again = await openLinkStore(copy);
    expect(again.get('telegram:0')?.last_event_id).toBe(5);
    await again.setLastEventId('telegram:0', 6);
    const third = await openLinkStore(crashCopy(copy));
    expect(third.get('telegram:0')?.last_event_id).toBe(6);
    expect(third.list()).toHaveLength(2);
    await third.close();
    await again.close();
  });

  it("carries an earlier version's links.json over, then removes it", async () => {
    const { dir, store } = await withUsers(2, SECRET);
    await store.setSurfaceCursor(9);
    await store.close();
    // As an earlier version kept it: one document (sealed with the same links.key).
    const { links } = replayLinkLog(readFileSync(logOf(dir), 'utf8'));
    const cards = { 'telegram:1|cf_000000000000000b': { ...card('telegram:1', 'cf_000000000000000b', '3'), updated_at: Date.now() } };
    writeFileSync(path.join(dir, LEGACY_LINKS_FILE), JSON.stringify({ version: 1, links, cards, surface_cursor: 9 }));
    rmSync(logOf(dir));
    const logged: string[] = [];
    const again = await openLinkStore(dir, { log: (_l, m) => logged.push(m) });
    expect(existsSync(path.join(dir, LEGACY_LINKS_FILE))).toBe(false);
    expect(statSync(logOf(dir)).mode & 0o777).toBe(0o600);
    expect(logged.some((m) => m.includes('links.json'))).toBe(true);
    expect(again.keyOf('telegram:1')).toBe(SECRET);
    expect(again.surfaceCursor()).toBe(9);
    expect(again.cardAt({ chatId: '1', messageId: '3' })?.owner).toBe('telegram:1');
    await again.close();
    // A links.json left beside a durable links.jsonl (a stop before the removal) is not read again.
    writeFileSync(path.join(dir, LEGACY_LINKS_FILE), JSON.stringify({ version: 1, links: {}, cards: {} }));
    const third = await openLinkStore(dir);
    expect(third.list()).toHaveLength(2);
    expect(existsSync(path.join(dir, LEGACY_LINKS_FILE))).toBe(false);
    await third.close();
  });

  it('compacts to exactly the live records once the log outgrows them', async () => {
    const { dir, store } = await withUsers(10);
    await store.putCard(card('telegram:3', 'cf_000000000000000c', '8'));
    await store.unlink('telegram:9');
    const changes = 2 * 10 + COMPACT_FLOOR + 50;
    await Promise.all(Array.from({ length: changes }, (_, i) => store.setLastEventId(`telegram:${i % 9}`, i + 1)));
    expect(linesOf(dir).length).toBeLessThan(100); // compacted while running, not only at close
    const live = replayLinkLog(readFileSync(logOf(dir), 'utf8'));
    for (let i = 0; i < 9; i++) expect(live.links[`telegram:${i}`]?.last_event_id).toBe(store.get(`telegram:${i}`)?.last_event_id);
    await store.close();
    // At close: one line per live record, nothing else (9 links, 1 card).
    const lines = linesOf(dir).map((l) => JSON.parse(l) as { k: string; id: string });
    expect(lines).toHaveLength(10);
    expect(new Set(lines.map((l) => l.id)).size).toBe(10);
    expect(lines.some((l) => l.id === 'telegram:9')).toBe(false);
  });

  it('scrubs a dropped secret and an unlinked user from the disk within a second or so', async () => {
    const { dir, store } = await withUsers(3, SECRET);
    const sealed = store.get('telegram:0')?.sealed_key as string;
    await store.dropSecret('telegram:0');
    await store.unlink('telegram:1');
    expect(readFileSync(logOf(dir), 'utf8')).toContain(sealed); // the earlier line, until the compaction
    const deadline = Date.now() + 5_000;
    while (readFileSync(logOf(dir), 'utf8').includes(sealed) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const text = readFileSync(logOf(dir), 'utf8');
    expect(text).not.toContain(sealed);
    expect(text).not.toContain('"telegram:1"');
    expect(store.keyOf('telegram:2')).toBe(SECRET);
    await store.close();
  });
});
