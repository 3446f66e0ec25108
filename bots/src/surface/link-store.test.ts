import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEY_FILE, LINKS_FILE, openLinkStore } from './link-store';
import { createSecretBox } from './secret-box';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'presence-bots-store-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const record = {
  surface: 'telegram' as const,
  user_id: '42',
  name: 'alice',
  account: 'default',
  key_id: 'key_x',
  key_name: 'telegram:alice',
  scopes: ['talk'],
  home_chat: '42',
  linked_at: '2026-01-01T00:00:00.000Z',
  last_event_id: null,
};
const SECRET = 'prs_live_0123456789abcdef0123456789abcdef';

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
    expect(statSync(path.join(dir, LINKS_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dir, KEY_FILE)).mode & 0o777).toBe(0o600);
    const again = await openLinkStore(dir);
    expect(again.keyOf('telegram:42')).toBe(SECRET);
    expect(again.get('telegram:42')?.last_event_id).toBe(7);
    await again.close();
  });

  it('refuses a sealed key moved to another user, and a second process on the same directory', async () => {
    const dir = tmp();
    const store = await openLinkStore(dir);
    await store.link('telegram:42', record, SECRET);
    await expect(openLinkStore(dir)).rejects.toThrow(/is using/);
    await store.close();
    const doc = JSON.parse(readFileSync(path.join(dir, LINKS_FILE), 'utf8'));
    doc.links['telegram:43'] = { ...doc.links['telegram:42'], user_id: '43' };
    writeFileSync(path.join(dir, LINKS_FILE), JSON.stringify(doc));
    const reopened = await openLinkStore(dir);
    expect(() => reopened.keyOf('telegram:43')).toThrow();
    await reopened.close();
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
