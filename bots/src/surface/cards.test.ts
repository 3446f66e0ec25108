// A card is recorded before its message is sent: a press that comes while the send is still
// under way (a quick thumb, or another process that got the press) finds it, and the pressed
// message is kept as one of the card's copies, so its outcome is painted there. The chat
// platform is the edge here: a port whose send the test holds open. A card answered or settled
// while a copy of it is still being sent has that copy painted to match once it is sent: no
// copy keeps live buttons on a request that is no longer waiting. Presence is the other edge:
// a real client whose `fetch` the test answers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPresenceClient } from '@presence/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../../../scripts/postgres';
import { createCards } from './cards';
import type { ChatButton, ChatPort, ChatUser, MessageRef } from './chat-port';
import { type LinkStore, openLinkStore } from './link-store';
import { openPgLinkStore } from './pg-link-store';
import { outcomeText } from './render';

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

type Edit = { ref: MessageRef; text: string; buttons?: readonly ChatButton[] };
const link = { surface: 'telegram', user_id: '7', name: 'ada', account: 'acc_1', key_id: 'key_1', key_name: 'telegram:7' } as const;

/** Cards over `store` (a file table in a temporary directory by default); Presence answers through `fetch`. */
async function setUp(send: () => Promise<MessageRef>, { store, fetch }: { store?: LinkStore; fetch?: typeof globalThis.fetch } = {}) {
  if (!store) {
    const dir = mkdtempSync(path.join(tmpdir(), 'cards-'));
    dirs.push(dir);
    store = await openLinkStore(dir);
    stores.push(store);
  }
  if (!store.get(owner))
    await store.link(owner, { ...link, scopes: ['talk'], home_chat: '7', linked_at: new Date().toISOString(), last_event_id: null }, null);
  const edits: Edit[] = [];
  const port = {
    surface: 'telegram',
    maxLength: 4096,
    send,
    edit: async (ref: MessageRef, text: string, buttons?: readonly ChatButton[]) => void edits.push({ ref, text, buttons }),
    privateChat: async () => '7',
  } satisfies ChatPort;
  const client = createPresenceClient({ baseUrl: 'http://127.0.0.1:9', token: 'prs_live_test', fetch, retries: 0 });
  const cards = createCards({ store, port, clientFor: () => client, revoked: async () => undefined, now: Date.now, log: () => undefined });
  /** What the message shows now, as far as the bot's edits tell. */
  const shows = (ref: MessageRef) => edits.filter((e) => e.ref.chatId === ref.chatId && e.ref.messageId === ref.messageId).at(-1);
  return { store, cards, edits, shows };
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

/** Sends that come back at once as `first`, except the ones the test holds (`hold()` before them). */
function chat(first: MessageRef) {
  let held: ReturnType<typeof heldSend> | null = null;
  return {
    send: () => (held ? held.send() : Promise.resolve(first)),
    hold() {
      held = heldSend();
      return held.release;
    },
  };
}

const blocked = () =>
  Response.json(
    { type: 'policy_block', title: 'Blocked by policy', status: 409, detail: 'over the daily cap.' },
    { status: 409, headers: { 'content-type': 'application/problem+json' } },
  );

/** Presence answering POST /v1/confirm/{id} (with a denial by default) once the test lets it. */
function heldAnswer(answer = () => Response.json({ confirm_id: facts.confirm_id, status: 'denied' })) {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const asked: string[] = [];
  const fetch = async (input: string | URL | Request) => {
    asked.push(String(input));
    await gate;
    return answer();
  };
  return { fetch: fetch as typeof globalThis.fetch, asked, release: () => release() };
}

const tick = () => new Promise((r) => setImmediate(r));
async function until(check: () => boolean) {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}
const denying = outcomeText(facts, { status: 'answering', approve: false });
const denied = outcomeText(facts, { status: 'denied' });

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

describe('a copy sent while its card leaves open', () => {
  const m1 = { chatId: '7', messageId: '41' };
  const m2 = { chatId: '7', messageId: '42' };

  it('settled during the send (a confirm event): the new copy is edited to the outcome, buttons gone', async () => {
    const { send, release } = heldSend();
    const { store, cards, shows } = await setUp(send);
    const showing = cards.show(owner, '7', facts);
    await tick();
    await cards.retire(owner, {
      confirm_id: facts.confirm_id,
      intent_id: 'in_1',
      status: 'executed',
      tx: '0xabc',
      block: 12,
      at: new Date().toISOString(),
    });
    release(m1);
    await showing;
    const executed = outcomeText(facts, { status: 'executed', tx: '0xabc', block: 12 });
    expect(shows(m1)).toEqual({ ref: m1, text: executed, buttons: undefined });
    expect(store.card(owner, facts.confirm_id)).toMatchObject({
      state: 'closed',
      outcome: { status: 'executed', tx: '0xabc' },
      messages: [m1],
    });
  });

  it('answered during the send (/pending shows it again as a press is answered): "answering", then the outcome', async () => {
    const sends = chat(m1);
    const presence = heldAnswer();
    const { store, cards, shows } = await setUp(sends.send, { fetch: presence.fetch });
    await cards.show(owner, '7', facts);
    const releaseSend = sends.hold();
    const again = cards.show(owner, '7', facts, { again: true });
    await tick();
    const pressed = await cards.press(ada, `cf:${facts.confirm_id}:d`, m1);
    const running = pressed.run?.();
    await until(() => presence.asked.length === 1);
    releaseSend(m2);
    await again;
    expect(shows(m2)).toEqual({ ref: m2, text: denying, buttons: undefined });
    presence.release();
    await running;
    for (const ref of [m1, m2]) expect(shows(ref)).toEqual({ ref, text: denied, buttons: undefined });
    expect(store.card(owner, facts.confirm_id)).toMatchObject({ state: 'closed', outcome: { status: 'denied' }, messages: [m1, m2] });
  });

  it('answered during the send and blocked by policy: the new copy gets its buttons back with the others', async () => {
    const sends = chat(m1);
    const presence = heldAnswer(blocked);
    const { store, cards, shows } = await setUp(sends.send, { fetch: presence.fetch });
    await cards.show(owner, '7', facts);
    const releaseSend = sends.hold();
    const again = cards.show(owner, '7', facts, { again: true });
    await tick();
    const running = (await cards.press(ada, `cf:${facts.confirm_id}:d`, m1)).run?.();
    await until(() => presence.asked.length === 1);
    releaseSend(m2);
    await again;
    expect(shows(m2)).toEqual({ ref: m2, text: denying, buttons: undefined });
    presence.release();
    await running;
    for (const ref of [m1, m2]) {
      expect(shows(ref)?.text).toContain('Blocked by policy: over the daily cap');
      expect(shows(ref)?.buttons?.map((b) => b.label)).toEqual(['Approve', 'Deny']);
    }
    expect(store.card(owner, facts.confirm_id)).toMatchObject({ state: 'open', outcome: null, messages: [m1, m2] });
  });

  it('a closed card kept before outcomes were is painted as settled', async () => {
    const { send, release } = heldSend();
    const { store, cards, shows } = await setUp(send);
    await store.putCard({ owner, ...facts, messages: [], state: 'closed' });
    const showing = cards.show(owner, '7', facts);
    release(m1);
    await showing;
    expect(shows(m1)).toEqual({ ref: m1, text: outcomeText(facts, { status: 'settled' }), buttons: undefined });
  });
});

describe('two processes on one PostgreSQL table', () => {
  let pg: ThrowawayPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it('a copy one process sends while the other settles the card is painted with the outcome from the table', async () => {
    const a = await openPgLinkStore(pg.url);
    const b = await openPgLinkStore(pg.url);
    stores.push(a, b);
    const m1 = { chatId: '7', messageId: '51' };
    const m2 = { chatId: '7', messageId: '52' };
    const sends = chat(m1);
    const onA = await setUp(sends.send, { store: a });
    const presence = heldAnswer();
    const onB = await setUp(() => Promise.reject(new Error('B sends nothing')), { store: b, fetch: presence.fetch });
    await onA.cards.show(owner, '7', facts);
    const releaseSend = sends.hold();
    const again = onA.cards.show(owner, '7', facts, { again: true });
    await tick();
    // Pressed on B, which answers it to the end while A's send is still under way.
    presence.release();
    await (await onB.cards.press(ada, `cf:${facts.confirm_id}:d`, m1)).run?.();
    expect(onB.shows(m1)).toEqual({ ref: m1, text: denied, buttons: undefined });
    releaseSend(m2);
    await again;
    expect(onA.shows(m2)).toEqual({ ref: m2, text: denied, buttons: undefined });
    expect(await a.loadCard(owner, facts.confirm_id)).toMatchObject({ state: 'closed', outcome: { status: 'denied' }, messages: [m1, m2] });
  });
});
