import { appendFileSync, chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cardRecord, linkRecord } from '../../test/helpers/records';
import { useTempDirs } from '../../test/helpers/temp-dirs';
import { replayLinkLog } from './link-log';
import { KEY_FILE, LEGACY_LINKS_FILE, LINKS_FILE, openLinkStore } from './link-store';
import { createSecretBox } from './secret-box';

const tmp = useTempDirs('presence-bots-store-');

const record = linkRecord();
const SECRET = 'prs_live_0123456789abcdef0123456789abcdef';
const modeOf = (file: string) => statSync(file).mode & 0o777;
/** The modes of the directory and of every file the store keeps in it. */
const modes = (dir: string) =>
  Object.fromEntries([['.', modeOf(dir)], ...[LINKS_FILE, KEY_FILE, 'bots.pid'].map((f) => [f, modeOf(path.join(dir, f))])]);
const PRIVATE = { '.': 0o700, [LINKS_FILE]: 0o600, [KEY_FILE]: 0o600, 'bots.pid': 0o600 };

describe('link store', () => {
  it('keeps keys sealed at rest in 0600 files and opens them after a restart', async () => {
    const dir = tmp();
    const store = await openLinkStore(dir);
    await store.link('telegram:42', record, SECRET);
    await store.setLastEventId('telegram:42', 7);
    await store.setLastEventId('telegram:42', 5); // never backwards
    await store.close();
    const text = readFileSync(path.join(dir, LINKS_FILE), 'utf8');
    expect(text).not.toContain(SECRET);
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(path.join(dir, LINKS_FILE))).toBe(0o600);
    expect(modeOf(path.join(dir, KEY_FILE))).toBe(0o600);
    const again = await openLinkStore(dir);
    expect(again.keyOf('telegram:42')).toBe(SECRET);
    expect(again.get('telegram:42')?.last_event_id).toBe(7);
    await again.close();
  });

  it('tightens a directory an earlier version left 0755 with 0644 files, at open, and says so', async () => {
    const dir = path.join(tmp(), '.presence-bots');
    const first = await openLinkStore(dir);
    await first.link('telegram:42', record, SECRET);
    await first.close();
    // As an earlier version (or a copy, or a loose umask) would have left it.
    chmodSync(dir, 0o755);
    for (const f of [LINKS_FILE, KEY_FILE]) chmodSync(path.join(dir, f), 0o644);
    writeFileSync(path.join(dir, 'bots.pid'), '999999999', { mode: 0o644 }); // a stale lock from a crash
    writeFileSync(path.join(dir, 'notes.txt'), 'left by hand', { mode: 0o664 });
    mkdirSync(path.join(dir, 'backup'), { mode: 0o755 });
    const outside = path.join(tmp(), 'outside.txt');
    writeFileSync(outside, 'not ours', { mode: 0o644 });
    symlinkSync(outside, path.join(dir, 'link-to-outside'));

    const logged: string[] = [];
    const store = await openLinkStore(dir, { log: (_level, message, fields) => logged.push(`${message} ${JSON.stringify(fields)}`) });
    expect(modes(dir)).toEqual(PRIVATE);
    expect(modeOf(path.join(dir, 'notes.txt'))).toBe(0o600);
    expect(modeOf(path.join(dir, 'backup'))).toBe(0o755); // not a file of ours
    expect(modeOf(outside)).toBe(0o644); // a link is not followed
    expect(logged.some((l) => l.includes(`"path":${JSON.stringify(dir)}`) && l.includes('"was":"0755"'))).toBe(true);
    expect(logged.some((l) => l.includes(LINKS_FILE) && l.includes('"was":"0644"') && l.includes('"now":"0600"'))).toBe(true);
    expect(store.keyOf('telegram:42')).toBe(SECRET); // the same table and key, only private now
    await store.setLastEventId('telegram:42', 9);
    expect(modes(dir)).toEqual(PRIVATE);
    await store.close();
    // Once private, a later open has nothing to say.
    const quiet: string[] = [];
    await (await openLinkStore(dir, { log: (_l, m) => quiet.push(m) })).close();
    expect(quiet).toEqual([]);
  });

  it('refuses a sealed key moved to another user, and a second process on the same directory', async () => {
    const dir = tmp();
    const store = await openLinkStore(dir);
    await store.link('telegram:42', record, SECRET);
    await expect(openLinkStore(dir)).rejects.toThrow(/is using/);
    await store.close();
    const moved = { ...replayLinkLog(readFileSync(path.join(dir, LINKS_FILE), 'utf8')).links['telegram:42'], user_id: '43' };
    appendFileSync(path.join(dir, LINKS_FILE), `${JSON.stringify({ k: 'link', id: 'telegram:43', v: moved })}\n`);
    const reopened = await openLinkStore(dir);
    expect(() => reopened.keyOf('telegram:43')).toThrow();
    await reopened.close();
  });

  it('goes back only when told the server did: the cursor and the last ids of users the surface stream feeds', async () => {
    const dir = tmp();
    const store = await openLinkStore(dir);
    await store.link('telegram:1', record, null);
    await store.link('telegram:2', { ...record, key_id: 'key_2' }, SECRET);
    await store.setSurfaceCursor(90);
    await store.setSurfaceCursor(40); // never backwards by itself
    for (const owner of ['telegram:1', 'telegram:2']) await store.setLastEventId(owner, 70);
    await store.rewindSurface(12);
    await store.rewindLastEventId('telegram:2', 30);
    await store.rewindLastEventId('telegram:2', 50); // a rewind only goes back
    await store.close();
    const again = await openLinkStore(dir);
    expect(again.surfaceCursor()).toBe(12);
    expect(again.get('telegram:1')?.last_event_id).toBeNull();
    expect(again.get('telegram:2')?.last_event_id).toBe(30);
    await again.close();
  });

  it('unlinking forgets the key and its cards', async () => {
    const store = await openLinkStore(tmp());
    await store.link('telegram:42', record, SECRET);
    const card = {
      owner: 'telegram:42',
      confirm_id: 'cf_0123456789abcdef',
      summary: 's',
      amount: '1 USDC',
      value_usd: null,
      expires_at: new Date(Date.now() + 60_000).toISOString(),
      timeout_s: 60,
      messages: [{ chatId: '42', messageId: '9' }],
      state: 'open' as const,
    };
    await store.putCard(card);
    expect(store.cardAt({ chatId: '42', messageId: '9' })?.confirm_id).toBe(card.confirm_id);
    await store.unlink('telegram:42');
    expect(store.get('telegram:42')).toBeUndefined();
    expect(store.cardAt({ chatId: '42', messageId: '9' })).toBeUndefined();
    await store.close();
  });
});

const card = (confirmId: string, messageId: string) => cardRecord(confirmId, messageId);
const at = (messageId: string) => ({ chatId: '42', messageId });

describe('cards by message', () => {
  it('finds a card by any of its copies after changes and a restart, and forgets it when pruned or unlinked', async () => {
    let t = Date.now();
    const dir = tmp();
    const store = await openLinkStore(dir, { now: () => t });
    await store.link('telegram:42', record, null);
    await store.putCard(card('cf_000000000000000a', '1'));
    await store.updateCard('telegram:42', 'cf_000000000000000a', { messages: [at('2')] });
    await store.putCard(card('cf_000000000000000b', '3'));
    for (const m of ['1', '2']) expect(store.cardAt(at(m))?.confirm_id).toBe('cf_000000000000000a');
    expect(store.card('telegram:42', 'cf_000000000000000a')?.messages).toEqual([at('1'), at('2')]); // added, not replaced
    expect(store.cardAt({ chatId: '43', messageId: '1' })).toBeUndefined(); // the same message id in another chat
    // Put again (a card shown anew) in other messages: the old ones no longer name it.
    await store.putCard(card('cf_000000000000000b', '4'));
    expect(store.cardAt(at('3'))).toBeUndefined();
    await store.close();

    const again = await openLinkStore(dir, { now: () => t });
    for (const m of ['1', '2']) expect(again.cardAt(at(m))?.confirm_id).toBe('cf_000000000000000a');
    // Closed a week and a day ago: the next change prunes it, and its messages with it.
    await again.updateCard('telegram:42', 'cf_000000000000000a', { state: 'closed', outcome: { status: 'denied' } });
    t += 8 * 24 * 3_600_000;
    await again.putCard({ ...card('cf_000000000000000c', '5'), expires_at: new Date(t + 60_000).toISOString() });
    for (const m of ['1', '2']) expect(again.cardAt(at(m))).toBeUndefined();
    expect(again.cardAt(at('5'))?.confirm_id).toBe('cf_000000000000000c');
    await again.unlink('telegram:42');
    for (const m of ['4', '5']) expect(again.cardAt(at(m))).toBeUndefined();
    await again.close();
  });

  it("finds each card by its message among 20,000 users' cards, carried over from an earlier version's links.json", async () => {
    const dir = tmp();
    const cards: Record<string, unknown> = {};
    const links: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) {
      links[`telegram:${i}`] = { ...record, user_id: String(i) };
      cards[`telegram:${i}|cf_${String(i).padStart(16, '0')}`] = {
        ...card(`cf_${String(i).padStart(16, '0')}`, String(i)),
        owner: `telegram:${i}`,
        messages: [{ chatId: String(i), messageId: '1' }],
        updated_at: Date.now(),
      };
    }
    writeFileSync(path.join(dir, LEGACY_LINKS_FILE), JSON.stringify({ version: 1, links, cards }));
    const store = await openLinkStore(dir);
    // The last users' cards, and one nobody has: the index is built from the file at open.
    for (let i = 19_800; i < 20_000; i++) expect(store.cardAt({ chatId: String(i), messageId: '1' })?.owner).toBe(`telegram:${i}`);
    expect(store.cardAt({ chatId: '20000', messageId: '1' })).toBeUndefined();
    await store.close();
  });
});

describe('secret box', () => {
  it('round-trips, uses a fresh IV each time and rejects tampering', () => {
    const box = createSecretBox(Buffer.alloc(32, 7));
    const a = box.seal('secret', 'ctx');
    expect(a).not.toBe(box.seal('secret', 'ctx'));
    expect(box.open(a, 'ctx')).toBe('secret');
    expect(() => box.open(a, 'other')).toThrow();
    const parts = a.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'), 'ctx')).toThrow();
  });
});
