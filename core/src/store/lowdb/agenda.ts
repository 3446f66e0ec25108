// The embedded store's index of due work (data/agenda.jsonl): for each topic (held intents,
// intents in flight, standing intents, retention of events and answers, memory to compact),
// which accounts may have something due, and from when. The beat and upkeep ask it instead of
// opening every account's files, so their cost follows the accounts with work, never the
// number of accounts (DESIGN.md, "Cost follows work, not accounts").
//
// Entries are hints that only ever over-include: a family sets an account's entry (and waits
// for the line to be durable) BEFORE writing the record that makes work due, and clears it
// only after seeing, in the account's own files, that nothing is due. A crash in between
// leaves an entry pointing at nothing, which the next visit clears; it never hides work.
//
// The file is a log of changes (the newest line per topic and account wins), loaded whole at
// start (one line per account with work, not per account) and compacted there when dead lines
// outnumber live ones. A line is written only when an entry changes, so a busy account pays
// for it once, not on every write.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { createAppendLog } from '../append-log';

export const agendaTopics = ['hold', 'inflight', 'standing', 'standing-price', 'events', 'idempotency', 'memory'] as const;
export type AgendaTopic = (typeof agendaTopics)[number];

const AgendaLine = z.object({ t: z.enum(agendaTopics), a: z.string(), at: z.number().nullable() });
type AgendaLine = z.infer<typeof AgendaLine>;

export type Agenda = {
  /** Whether the topic has an entry for the account. */
  has(topic: AgendaTopic, accountId: string): boolean;
  /** The entry's time, or undefined. */
  at(topic: AgendaTopic, accountId: string): number | undefined;
  /** Makes the account due at `at` unless it is already due as early; durable when it resolves. */
  lower(topic: AgendaTopic, accountId: string, at: number): Promise<void>;
  /** Sets the entry (null: removes it), durable when it resolves; a no-op when unchanged. */
  set(topic: AgendaTopic, accountId: string, at: number | null): Promise<void>;
  /** The accounts whose entry is at or before `now`. */
  due(topic: AgendaTopic, now: number): string[];
  /** Every account with an entry in the topic. */
  accounts(topic: AgendaTopic): string[];
  /** Whether the file existed at start (false: a data directory from before it, to be indexed once). */
  readonly existed: boolean;
  /** Creates the file (empty if nothing is due), so the next start knows the index is complete. */
  markIndexed(): Promise<void>;
  close(): Promise<void>;
};

export async function openAgenda(root: string, { fsync }: { fsync: boolean }): Promise<Agenda> {
  const where = path.join(root, 'agenda.jsonl');
  const existed = existsSync(where);
  const file = createAppendLog(where, AgendaLine, { fsync });
  const lines = await file.readAll();
  const topics = new Map<AgendaTopic, Map<string, number>>(agendaTopics.map((t) => [t, new Map()]));
  const of = (t: AgendaTopic) => topics.get(t) as Map<string, number>;
  for (const l of lines) {
    if (l.at === null) of(l.t).delete(l.a);
    else of(l.t).set(l.a, l.at);
  }
  const live = () => [...topics.values()].reduce((n, m) => n + m.size, 0);
  const snapshot = (): AgendaLine[] => [...topics].flatMap(([t, m]) => [...m].map(([a, at]) => ({ t, a, at })));
  if (lines.length > 2 * live() + 1_000) await file.rewrite(snapshot);

  const set = async (t: AgendaTopic, a: string, at: number | null) => {
    const m = of(t);
    if ((at === null && !m.has(a)) || m.get(a) === at) return;
    // Published in memory at once (an over-inclusive hint is harmless), durable on resolve.
    if (at === null) m.delete(a);
    else m.set(a, at);
    await file.append([{ t, a, at }]);
  };
  return {
    existed,
    async markIndexed() {
      await file.rewrite(snapshot);
    },
    has: (t, a) => of(t).has(a),
    at: (t, a) => of(t).get(a),
    set,
    async lower(t, a, at) {
      const current = of(t).get(a);
      if (current === undefined || at < current) await set(t, a, at);
    },
    due(t, now) {
      const out: string[] = [];
      for (const [a, at] of of(t)) if (at <= now) out.push(a);
      return out;
    },
    accounts: (t) => [...of(t).keys()],
    close: () => file.close(),
  };
}
