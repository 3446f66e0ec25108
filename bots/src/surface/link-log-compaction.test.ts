// A compaction of links.jsonl that fails (here: a directory where its temp file goes, so the
// rewrite itself fails) backs off: changes are still appended and answered, the next tries
// wait 1 s, then 2 s, … by the store's clock rather than running on every change, the
// failure is logged once with its cause and the recovery once; a scrub that failed (a dropped
// secret) is tried again by itself once the back-off allows.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { userRecord } from '../../test/helpers/records';
import { useTempDirs } from '../../test/helpers/temp-dirs';
import { COMPACT_FLOOR } from './link-log-file';
import { LINKS_FILE, openLinkStore } from './link-store';

const tmp = useTempDirs('presence-bots-compact-');
type Logged = { level: string; message: string; fields?: Record<string, unknown> };
const SECRET = 'prs_live_0123456789abcdef0123456789abcdef';
async function until(check: () => boolean, ms = 5_000) {
  for (const end = Date.now() + ms; !check(); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > end) throw new Error('timed out');
  }
}
const linesIn = (dir: string) => readFileSync(path.join(dir, LINKS_FILE), 'utf8').split('\n').length - 1;

describe('a compaction that fails', () => {
  it('backs off (1 s, then 2 s) while changes are still appended, logging the failure and the recovery once each', async () => {
    let t = Date.parse('2026-03-01T00:00:00Z');
    const dir = tmp();
    const logged: Logged[] = [];
    const store = await openLinkStore(dir, { now: () => t, log: (level, message, fields) => logged.push({ level, message, fields }) });
    const owner = 'telegram:1';
    await store.link(owner, userRecord(1), null);
    let id = 0;
    const change = () => store.setLastEventId(owner, ++id);
    // Up to the line: one link live, so 2 + COMPACT_FLOOR lines before a compaction is asked for.
    await Promise.all(Array.from({ length: COMPACT_FLOOR + 1 }, change));
    const temp = path.join(dir, `${LINKS_FILE}.tmp`);
    mkdirSync(temp); // the rewrite's temp file cannot be made: every compaction fails
    for (let i = 0; i < 20; i++) await change(); // past the line: the first fails, the rest wait
    const failures = () => logged.filter((l) => l.message.startsWith('could not compact'));
    expect(failures()).toHaveLength(1);
    expect(String(failures()[0]?.fields?.error)).toContain('EISDIR');
    expect(linesIn(dir)).toBe(COMPACT_FLOOR + 2 + 20); // every change appended all the same

    t += 1_000; // the first wait is over: the next change tries (and fails, unlogged); the wait is now 2 s
    await change();
    t += 1_500;
    rmSync(temp, { recursive: true });
    for (let i = 0; i < 5; i++) await change(); // within the 2 s: not tried, though it would succeed now
    expect(linesIn(dir)).toBe(COMPACT_FLOOR + 2 + 26);
    expect(failures()).toHaveLength(1);
    const recovered = () => logged.filter((l) => l.message === 'compacted links.jsonl again');
    expect(recovered()).toEqual([]);

    t += 600; // 2.1 s after the second failure
    await change();
    expect(linesIn(dir)).toBe(1); // compacted: the one live link
    expect(recovered()).toEqual([
      { level: 'info', message: 'compacted links.jsonl again', fields: { failed_tries: 2, failing_since: '2026-03-01T00:00:00.000Z' } },
    ]);
    expect(JSON.parse(readFileSync(path.join(dir, LINKS_FILE), 'utf8')).v.last_event_id).toBe(id);
    await store.close();
  });

  it('a scrub that failed is tried again once the back-off allows: the dropped secret still leaves the disk', async () => {
    const dir = tmp();
    const logged: Logged[] = [];
    const store = await openLinkStore(dir, { log: (level, message, fields) => logged.push({ level, message, fields }) });
    await store.link('telegram:1', userRecord(1), SECRET);
    const sealed = store.get('telegram:1')?.sealed_key as string;
    const temp = path.join(dir, `${LINKS_FILE}.tmp`);
    mkdirSync(temp);
    await store.dropSecret('telegram:1');
    await until(() => logged.some((l) => l.message.startsWith('could not compact')));
    expect(readFileSync(path.join(dir, LINKS_FILE), 'utf8')).toContain(sealed);
    rmSync(temp, { recursive: true }); // no change comes after: the scrub itself must try again
    await until(() => !readFileSync(path.join(dir, LINKS_FILE), 'utf8').includes(sealed));
    expect(logged.filter((l) => l.message === 'compacted links.jsonl again')).toHaveLength(1);
    await store.close();
  });
});
