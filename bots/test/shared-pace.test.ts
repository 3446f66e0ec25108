// Telegram's send limits across processes: two bot processes' pacers on one PostgreSQL bots'
// table take their slots from the same rows, so together they stay within 30 calls a second
// for the bot and one message a second per chat. The slots are checked, not the clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../../scripts/postgres';
import { openPgLinkStore, type PgLinkStore } from '../src/surface/pg-link-store';
import { createSendPace } from '../src/telegram/send-pace';

let pg: ThrowawayPostgres;
let stores: PgLinkStore[] = [];

beforeAll(async () => {
  pg = await startPostgres();
  const url = await pg.createDatabase();
  stores = [await openPgLinkStore(url), await openPgLinkStore(url)];
}, 60_000);

afterAll(async () => {
  for (const s of stores) await s.close();
  await pg?.stop();
});

describe('send limits shared by two processes', () => {
  it('two pacers sending at once take distinct bot slots 1/30 s apart and chat slots 1 s apart', async () => {
    const t = 1_800_000_000_000;
    const slots: { key: string; at: number }[] = [];
    const paces = stores.map((store) =>
      createSendPace({
        now: () => t,
        sleep: async () => undefined,
        shared: async (key, gap, now) => {
          const at = await store.paceSlot(key, gap, now);
          slots.push({ key, at });
          return at;
        },
      }),
    );
    const prev = async () => ({ ok: true as const, result: true });
    // Each process: 15 messages to chats of its own and 3 to one chat both write to.
    await Promise.all(
      paces.map((pace, p) =>
        Promise.all([
          ...Array.from({ length: 15 }, (_, i) => pace.transformer(prev as never, 'sendMessage', { chat_id: p * 100 + i } as never)),
          ...Array.from({ length: 3 }, () => pace.transformer(prev as never, 'sendMessage', { chat_id: 99_999 } as never)),
        ]),
      ),
    );
    const bot = slots
      .filter((s) => s.key === 'bot')
      .map((s) => s.at)
      .sort((a, b) => a - b);
    expect(bot).toHaveLength(36);
    for (let i = 1; i < bot.length; i++) expect((bot[i] as number) - (bot[i - 1] as number)).toBeCloseTo(1000 / 30, 3);
    const shared = slots
      .filter((s) => s.key === 'chat:99999')
      .map((s) => s.at - t)
      .sort((a, b) => a - b);
    expect(shared.map((x) => Math.round(x))).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
  });
});

describe('cards shared by two processes', () => {
  it('a card put by one process is found by the other at once, before its notice arrives', async () => {
    const [a, b] = stores as [PgLinkStore, PgLinkStore];
    const card = {
      owner: 'telegram:77',
      confirm_id: 'cf_race',
      summary: 'swap 21 USDC for WETH',
      amount: '21 USDC',
      value_usd: '21.00',
      expires_at: new Date(0).toISOString(),
      timeout_s: 600,
      messages: [{ chatId: '77', messageId: '5' }],
      state: 'open' as const,
    };
    await a.putCard(card);
    // The other process's copy may not have heard yet; a press there reads the table.
    const found = b.card(card.owner, card.confirm_id) ?? (await b.loadCard(card.owner, card.confirm_id));
    expect(found).toMatchObject({ owner: card.owner, confirm_id: 'cf_race', state: 'open' });
    expect(await b.loadCard('telegram:77', 'cf_nobody')).toBeUndefined();
  });
});
