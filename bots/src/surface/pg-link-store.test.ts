// The bots' table in PostgreSQL as two processes see it: a press finds its card by the message
// it came from (an index, not a scan of every user's cards) on either process, after changes
// made on either; two processes changing one card at once both keep their part; a card that
// is unlinked or outlives its retention is forgotten by its messages everywhere.
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../../../scripts/postgres';
import { cardRecord, linkRecord } from '../../test/helpers/records';
import type { MessageRef } from './chat-port';
import { openPgLinkStore, type PgLinkStore } from './pg-link-store';

let pg: ThrowawayPostgres;
const open: PgLinkStore[] = [];
beforeAll(async () => {
  pg = await startPostgres();
}, 120_000);
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await pg?.stop();
});

const owner = 'telegram:42';
const link = linkRecord();
const at = (messageId: string): MessageRef => ({ chatId: '42', messageId });
const card = (confirmId: string, messageId: string, now = Date.now()) => cardRecord(confirmId, messageId, { now });
const A = 'cf_000000000000000a';

/** Two processes of one bot on a fresh database; `now` is the first one's clock. */
async function twoProcesses(now: () => number = Date.now) {
  const url = await pg.createDatabase();
  const one = await openPgLinkStore(url, { now });
  const two = await openPgLinkStore(url);
  open.push(one, two);
  await one.link(owner, link, null);
  return { one, two };
}
async function until(check: () => boolean) {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

describe('cards on the PostgreSQL table, by message', () => {
  it('are found by any copy on either process, with both processes’ changes to one card kept', async () => {
    const { one, two } = await twoProcesses();
    await one.putCard(card(A, '1'));
    await one.updateCard(owner, A, { messages: [at('2')] });
    for (const m of ['1', '2']) expect(one.cardAt(at(m))?.confirm_id).toBe(A);
    await until(() => two.cardAt(at('2'))?.confirm_id === A);
    expect(two.cardAt({ chatId: '43', messageId: '1' })).toBeUndefined();
    // One process adds a copy while the other closes the card, each from its own (now stale) copy of the row.
    const [added, closed] = await Promise.all([
      one.updateCard(owner, A, { messages: [at('3')] }),
      two.updateCard(owner, A, { state: 'closed', outcome: { status: 'denied' } }),
    ]);
    const both = { state: 'closed', outcome: { status: 'denied' }, messages: [at('1'), at('2'), at('3')] };
    expect(await one.loadCard(owner, A)).toMatchObject(both);
    // Whichever came second was answered the card with the other's part in it.
    expect([added, closed].some((c) => c?.state === 'closed' && c.messages.length === 3)).toBe(true);
    await until(() => two.cardAt(at('3'))?.state === 'closed');
  });

  it('are forgotten by their messages once unlinked, or pruned after their retention, on both processes', async () => {
    let t = Date.now();
    const { one, two } = await twoProcesses(() => t);
    await one.putCard(card(A, '1', t));
    await one.updateCard(owner, A, { state: 'closed', outcome: { status: 'expired' } });
    await until(() => two.cardAt(at('1'))?.state === 'closed');
    t += 8 * 24 * 3_600_000;
    await one.putCard(card('cf_000000000000000b', '2', t));
    expect(one.cardAt(at('1'))).toBeUndefined();
    await until(() => two.cardAt(at('1')) === undefined && two.cardAt(at('2')) !== undefined);
    await one.unlink(owner);
    expect(one.cardAt(at('2'))).toBeUndefined();
    await until(() => two.cardAt(at('2')) === undefined);
  });
});

describe('the surface cursor on the PostgreSQL table', () => {
  it('goes back, with every last event id forgotten, only when told the server did; the other process reads it so', async () => {
    const { one, two } = await twoProcesses();
    await one.setSurfaceCursor(90);
    await one.setLastEventId(owner, 70);
    await two.setSurfaceCursor(40); // never backwards by itself
    await until(() => two.surfaceCursor() === 90 && two.get(owner)?.last_event_id === 70);
    await two.rewindSurface(12);
    expect([two.surfaceCursor(), two.get(owner)?.last_event_id]).toEqual([12, null]);
    await until(() => one.surfaceCursor() === 12 && one.get(owner)?.last_event_id === null);
    const three = await openPgLinkStore(two.dir);
    open.push(three);
    expect([three.surfaceCursor(), three.get(owner)?.last_event_id]).toEqual([12, null]);
    await three.setLastEventId(owner, 5);
    await three.rewindLastEventId(owner, 3);
    await until(() => one.get(owner)?.last_event_id === 3);
  });
});

describe('rows of the PostgreSQL table that do not fit their schema', () => {
  it('are logged by record and left out, the other rows loaded, whether read at start or on another process’s notice', async () => {
    const url = await pg.createDatabase();
    const logged: { message: string; fields?: Record<string, unknown> }[] = [];
    const one = await openPgLinkStore(url, { log: (_l, message, fields) => logged.push({ message, fields }) });
    open.push(one);
    await one.link(owner, link, null);
    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      const bad = { ...linkRecord({ user_id: '7', key_id: 'key_7' }), last_event_id: 'seven' };
      await sql`INSERT INTO bots_links (owner, key_id, doc) VALUES ('telegram:7', 'key_7', ${sql.json(bad)})`;
      await sql`SELECT pg_notify('presence_bots', 'link:telegram:7')`;
      await until(() => logged.length > 0);
      const two = await openPgLinkStore(url, { log: (_l, message, fields) => logged.push({ message, fields }) });
      open.push(two);
      for (const store of [one, two]) expect(store.list().map((l) => l.user_id)).toEqual(['42']);
      expect(logged).toHaveLength(2);
      for (const l of logged) expect(l.fields).toEqual({ record: 'link telegram:7', problem: expect.stringMatching(/^last_event_id: /) });
    } finally {
      await sql.end();
    }
  });
});
