// A data directory from before the agenda (agenda.ts) has no index of due work: the first
// start of this version reads every account once and writes it. This is the one pass over
// every account, and it happens once per data directory, never on a periodic path.
import type { Agenda } from './agenda';
import type { EventsFamily } from './events';
import type { IdempotencyFamily } from './idempotency';
import type { IntentsFamily } from './intents';
import { type MemoryFamily, memoryAgendaOf } from './memory';
import { type StandingFamily, standingAgendaOf } from './standing';

type Families = {
  events: EventsFamily;
  idempotency: IdempotencyFamily;
  intents: IntentsFamily;
  memory: MemoryFamily;
  standing: StandingFamily;
};

export async function indexDueWork(agenda: Agenda, accountIds: readonly string[], f: Families): Promise<void> {
  for (const id of accountIds) {
    const held = await f.intents.listIntents(id, { states: ['held'] });
    if (held.length > 0) await agenda.set('hold', id, Math.min(...held.map((r) => r.expires_at ?? 0)));
    if ((await f.intents.listIntents(id, { states: ['executing', 'signed'] })).length > 0) await agenda.set('inflight', id, 0);
    await standingAgendaOf(f.standing, agenda, id);
    await agenda.set('memory', id, await memoryAgendaOf(f.memory, id));
    // Retention: due at once; the first upkeep sets each account's real time (or clears it).
    if ((await f.events.eventBounds(id)).oldest !== null) await agenda.set('events', id, 0);
    await agenda.set('idempotency', id, 0);
  }
  await agenda.markIndexed();
}
