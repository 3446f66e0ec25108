// What a card update costs the file store with 10 and with 10,000 users linked (each with one
// card on screen): 1,000 updates one after another, each awaited (so durable), timed, and the
// bytes the table's file grew or was rewritten by. A script, not a test (timings vary by
// machine); docs/benchmarks.md holds its figures. Run from the repository root:
//   npx tsx bots/test/timing/file-table.ts [path of a link-store module to time instead]
// (the second form times another version of the store, e.g. one checked out from main).
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { openLinkStore as OpenLinkStore } from '../../src/surface/link-store';

const UPDATES = 1_000;
const modulePath = process.argv[2] ? pathToFileURL(path.resolve(process.argv[2])).href : '../../src/surface/link-store';
const { openLinkStore } = (await import(modulePath)) as { openLinkStore: typeof OpenLinkStore };

/** links.json as every version reads it (the current one carries it over at open). */
function seed(dir: string, users: number) {
  const links: Record<string, unknown> = {};
  const cards: Record<string, unknown> = {};
  for (let i = 0; i < users; i++) {
    const owner = `telegram:${i}`;
    links[owner] = {
      surface: 'telegram',
      user_id: String(i),
      name: `user${i}`,
      account: `acct_${i % 100}`,
      key_id: `key_${String(i).padStart(20, '0')}`,
      key_name: `telegram:user${i}`,
      scopes: ['talk', 'read', 'spend'],
      home_chat: String(i),
      linked_at: new Date().toISOString(),
      last_event_id: i,
    };
    cards[`${owner}|cf_${String(i).padStart(16, '0')}`] = {
      owner,
      confirm_id: `cf_${String(i).padStart(16, '0')}`,
      summary: 'swap 20 USDC for WETH',
      amount: '20 USDC',
      value_usd: '20.00',
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      timeout_s: 3600,
      messages: [{ chatId: String(i), messageId: '1' }],
      state: 'open',
      outcome: null,
      updated_at: Date.now(),
    };
  }
  writeFileSync(path.join(dir, 'links.json'), JSON.stringify({ version: 1, links, cards }), { mode: 0o600 });
}

/** The bytes the table holds on disk (links.jsonl now, links.json before). */
const tableBytes = (dir: string) =>
  ['links.jsonl', 'links.json'].reduce((n, f) => {
    try {
      return n + statSync(path.join(dir, f)).size;
    } catch {
      return n;
    }
  }, 0);

async function time(users: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'presence-bots-timing-'));
  try {
    seed(dir, users);
    const store = await openLinkStore(dir);
    const took: number[] = [];
    let written = 0;
    for (let i = 0; i < UPDATES; i++) {
      const owner = `telegram:${i % users}`;
      const confirmId = `cf_${String(i % users).padStart(16, '0')}`;
      const before = tableBytes(dir);
      const t0 = performance.now();
      // A press taken and let go: the card's size stays the same, only the table's may matter.
      await store.updateCard(owner, confirmId, { state: i % 2 === 0 ? 'answering' : 'open' });
      took.push(performance.now() - t0);
      // Appended (links.jsonl): what the file grew by, or all of it when a compaction shrank
      // it; rewritten whole (links.json): the new file's size.
      const after = tableBytes(dir);
      const appended = existsSync(path.join(dir, 'links.jsonl'));
      written += appended && after >= before ? after - before : after;
    }
    await store.close();
    took.sort((a, b) => a - b);
    const total = took.reduce((a, b) => a + b, 0);
    const p99 = took[Math.floor(0.99 * took.length)] ?? Number.NaN;
    process.stdout.write(
      `${users} users: ${UPDATES} card updates in ${total.toFixed(0)} ms (mean ${(total / UPDATES).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms), ` +
        `${Math.round(written / UPDATES)} bytes written per update, table ${tableBytes(dir)} bytes after close\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const users of [10, 10_000]) await time(users);
