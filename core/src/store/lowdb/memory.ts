// Memory: one document per account, data/memory/<account>.json.
import { z } from 'zod';
import { MemoryEntry } from '../documents';
import type { StorePort } from '../store-port';
import { accountDocuments, type StoreContext } from './per-account';

const MemoryDoc = z.object({ entries: z.array(MemoryEntry) });

export type MemoryFamily = Pick<StorePort, 'readMemory' | 'updateMemory'>;

export function openMemory(ctx: StoreContext): MemoryFamily {
  const memoryDoc = accountDocuments(ctx, 'memory', MemoryDoc, { entries: [] });
  return {
    async readMemory(accountId) {
      return (await memoryDoc(accountId)).db.data.entries;
    },
    async updateMemory(accountId, update) {
      return ctx.documents.mutate(await memoryDoc(accountId), (d) => {
        const { entries, result } = update(d.entries);
        return { data: { entries }, result };
      });
    },
  };
}
