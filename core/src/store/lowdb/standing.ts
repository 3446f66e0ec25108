// Standing intents: one document per account, data/standing/<account>.json (an account keeps
// at most 100 active ones: the cap bounds the document). The agenda indexes which accounts
// may have one to fire: 'standing' at the earliest daily time or at once for pending fires,
// 'standing-price' while any price trigger is active, so the beat opens only those accounts.
import { z } from 'zod';
import { StandingRecord } from '../documents';
import type { StandingPort } from '../standing-port';
import type { StandingDue } from '../store-port';
import type { Agenda } from './agenda';
import { accountDocuments, type StoreContext } from './per-account';

const StandingDoc = z.object({ standing: z.array(StandingRecord) });

export type StandingFamily = StandingPort;

/** The record may fire now (what the PostgreSQL adapter's query selects). */
export const standingMayFire = (r: StandingRecord, { now, pricesMoved, createdSince }: StandingDue) =>
  r.pending.length > 0 ||
  (r.state === 'active' &&
    (r.trigger.kind === 'daily' ? r.next_at !== null && r.next_at <= now : pricesMoved || r.created_at >= createdSince));

/** The agenda's view of one account's records: when the clock next matters, and whether prices do. */
function agendaOf(records: readonly StandingRecord[]): { clock: number | null; price: boolean } {
  let clock: number | null = null;
  let price = false;
  for (const r of records) {
    const at = r.pending.length > 0 ? 0 : r.state === 'active' && r.trigger.kind === 'daily' ? r.next_at : null;
    if (at !== null && (clock === null || at < clock)) clock = at;
    price ||= r.state === 'active' && r.trigger.kind === 'price';
  }
  return { clock, price };
}

export function openStanding(ctx: StoreContext, agenda: Agenda): StandingFamily {
  const { documents } = ctx;
  const standingDoc = accountDocuments(ctx, 'standing', StandingDoc, { standing: [] });
  /** Newest price trigger made per account since start: the data directory has one process, so it is all of them. */
  const madeAt = new Map<string, number>();

  /**
   * Changes the account's records under its lock (so the change is decided once, on what is
   * committed), telling the agenda of an earlier time before the write and of a later one after.
   */
  function write<R>(accountId: string, change: (records: StandingRecord[]) => { records: StandingRecord[]; result: R }) {
    return ctx.lock(`standing:${accountId}`, () =>
      standingDoc.use(accountId, async (doc) => {
        const before = agendaOf(doc.db.data.standing);
        const { records, result } = change(structuredClone([...doc.db.data.standing]));
        const after = agendaOf(records);
        if (after.clock !== null) await agenda.lower('standing', accountId, after.clock);
        if (after.price) await agenda.set('standing-price', accountId, 0);
        await documents.mutate(doc, () => ({ data: { standing: records }, result: undefined }));
        if (after.clock !== before.clock) await agenda.set('standing', accountId, after.clock);
        if (!after.price) await agenda.set('standing-price', accountId, null);
        return result;
      }),
    );
  }

  return {
    async putStanding(record) {
      if (record.trigger.kind === 'price') madeAt.set(record.account_id, Math.max(madeAt.get(record.account_id) ?? 0, record.created_at));
      await write(record.account_id, (records) => ({ records: [...records.filter((r) => r.id !== record.id), record], result: undefined }));
    },
    async listStanding(accountId) {
      return (await standingDoc.read(accountId)).standing;
    },
    async updateStanding(accountId, id, update) {
      return write(accountId, (records) => {
        const i = records.findIndex((r) => r.id === id);
        if (i < 0) return { records, result: null };
        const out = [...records];
        const next = update(records[i] as StandingRecord);
        out[i] = next;
        return { records: out, result: next };
      });
    },
    async dueStanding(due) {
      const accounts = new Set(agenda.due('standing', due.now));
      for (const a of agenda.accounts('standing-price'))
        if (due.pricesMoved || (madeAt.get(a) ?? Number.NEGATIVE_INFINITY) >= due.createdSince) accounts.add(a);
      const out: StandingRecord[] = [];
      for (const a of accounts) out.push(...(await standingDoc.read(a)).standing.filter((r) => standingMayFire(r, due)));
      return out;
    },
  };
}

/** What the agenda keeps of an account's standing intents, for indexing a data directory from before it. */
export async function standingAgendaOf(family: StandingFamily, agenda: Agenda, accountId: string): Promise<void> {
  const { clock, price } = agendaOf(await family.listStanding(accountId));
  await agenda.set('standing', accountId, clock);
  await agenda.set('standing-price', accountId, price ? 0 : null);
}
