// Standing intents: one document per account, data/standing/<account>.json.
import { z } from 'zod';
import { StandingRecord } from '../documents';
import type { StorePort } from '../store-port';
import { accountDocuments, type StoreContext } from './per-account';

const StandingDoc = z.object({ standing: z.array(StandingRecord) });

export type StandingFamily = Pick<StorePort, 'putStanding' | 'listStanding' | 'updateStanding'>;

/** `accountIds` lists every account, for listing across them. */
export function openStanding(ctx: StoreContext, accountIds: () => string[]): StandingFamily {
  const { documents } = ctx;
  const standingDoc = accountDocuments(ctx, 'standing', StandingDoc, { standing: [] });
  return {
    async putStanding(record) {
      await documents.mutate(await standingDoc(record.account_id), (d) => ({
        data: { standing: [...d.standing.filter((r) => r.id !== record.id), record] },
        result: undefined,
      }));
    },
    async listStanding(accountId) {
      if (accountId !== undefined) return (await standingDoc(accountId)).db.data.standing;
      const out: StandingRecord[] = [];
      for (const id of accountIds()) out.push(...(await standingDoc(id)).db.data.standing);
      return out;
    },
    async updateStanding(accountId, id, update) {
      return documents.mutate(await standingDoc(accountId), (d) => {
        const i = d.standing.findIndex((r) => r.id === id);
        if (i < 0) return { data: d, result: null };
        const next = update(d.standing[i] as StandingRecord);
        d.standing[i] = next;
        return { data: d, result: next };
      });
    },
  };
}
