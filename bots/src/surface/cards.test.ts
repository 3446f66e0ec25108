// A card is recorded before its message is sent: a press that comes while the send is still
// under way (a quick thumb, or another process that got the press) finds it, and the pressed
// message is kept as one of the card's copies, so its outcome is painted there. The chat
// platform is the edge here: a port whose send the test holds open.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCards } from './cards';
import type { ChatPort, ChatUser, MessageRef } from './chat-port';
import { openLinkStore } from './link-store';

const dirs: string[] = [];
const stores: { close(): Promise<void> }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const ada: ChatUser = { surface: 'telegram', id: '7', name: 'ada' };
const owner = 'telegram:7';
const facts = {
  confirm_id: 'cf_0123456789abcdef',
  summary: 'swap 21 USDC for WETH',
  amount: '21 USDC',
  value_usd: '21.00',
  expires_at: new Date(Date.now() + 600_000).toISOString(),
  timeout_s: 600,
};

async function setUp(send: () => Promise<MessageRef>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'cards-'));
  dirs.push(dir);
  const store = await openLinkStore(dir);
  stores.push(store);
  const link = { surface: 'telegram', user_id: '7', name: 'ada', account: 'acc_1', key_id: 'key_1', key_name: 'telegram:7' } as const;
  await store.link(owner, { ...link, scopes: ['talk'], home_chat: '7', linked_at: new Date().toISOString(), last_event_id: null }, null);
  const port = { surface: 'telegram', maxLength: 4096, send, edit: async () => undefined } as unknown as ChatPort;
  const cards = createCards({
    store,
    port,
    clientFor: () => {
      throw new Error('no answer is sent in these tests');
    },
    revoked: async () => undefined,
    now: Date.now,
    log: () => undefined,
  });
  return { store, cards };
}
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

/** A send the test holds open until it releases it. */
function heldSend() {
  let release: (ref: MessageRef) => void = () => undefined;
  const sent = new Promise<MessageRef>((r) => {
    release = r;
  });
  return { send: () => sent, release: (ref: MessageRef) => release(ref) };
}

describe('cards', () => {
  it('a press while the card is still being sent finds it and keeps the pressed message as a copy', async () => {
    const { send, release } = heldSend();
    const { store, cards } = await setUp(send);
    const showing = cards.show(owner, '7', facts);
    // The send has not come back: the card is known already, with no copy yet.
    await new Promise((r) => setImmediate(r));
    expect(store.card(owner, facts.confirm_id)?.messages).toEqual([]);
    const at = { chatId: '7', messageId: '42' };
    const answer = await cards.press(ada, `cf:${facts.confirm_id}:d`, at);
    expect(answer.toast).toBe('Denying…');
    expect(store.card(owner, facts.confirm_id)).toMatchObject({ state: 'answering', messages: [at] });
    release(at);
    await showing;
    // The send's own answer names the same message: it is kept once.
    expect(store.card(owner, facts.confirm_id)?.messages).toEqual([at]);
  });

  it('a card whose send failed is shown again, not taken for shown', async () => {
    const ref = { chatId: '7', messageId: '43' };
    let fails = true;
    const { store, cards } = await setUp(async () => {
      if (fails) throw new Error('telegram said 502');
      return ref;
    });
    await expect(cards.show(owner, '7', facts)).rejects.toThrow('502');
    expect(store.card(owner, facts.confirm_id)?.messages).toEqual([]);
    fails = false;
    await cards.show(owner, '7', facts);
    expect(store.card(owner, facts.confirm_id)?.messages).toEqual([ref]);
  });
});
