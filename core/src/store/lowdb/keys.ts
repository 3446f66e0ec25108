// API keys: one document per account (data/keys/<account>.json). Every key is loaded at start
// and indexed by id and by secret hash, so authentication is one map lookup, and a key write
// rewrites only its account's document and re-indexes only that key.
import { z } from 'zod';
import { PresenceError } from '../../errors/presence-error';
import { KeyRecord } from '../documents';
import type { StorePort } from '../store-port';
import type { Doc } from './documents-engine';
import { accountDocuments, type StoreContext } from './per-account';

const KeysDoc = z.object({ keys: z.array(KeyRecord) });

export type KeysFamily = Pick<StorePort, 'insertKey' | 'getKey' | 'findKeyBySecretHash' | 'listKeys' | 'updateKey'>;

export async function openKeys(ctx: StoreContext): Promise<KeysFamily> {
  const { documents } = ctx;
  const keyDoc = accountDocuments(ctx, 'keys', KeysDoc, { keys: [] });
  const byId = new Map<string, KeyRecord>();
  const byHash = new Map<string, KeyRecord>();
  const index = (k: KeyRecord) => {
    for (const s of byId.get(k.id)?.secrets ?? []) if (byHash.get(s.hash)?.id === k.id) byHash.delete(s.hash);
    byId.set(k.id, k);
    for (const s of k.secrets) byHash.set(s.hash, k);
  };
  /** Indexes the committed version of key `id` in `doc` (after a write that contained it). */
  const reindex = (doc: Doc<z.infer<typeof KeysDoc>>, id: string) => {
    const k = doc.db.data.keys.find((x) => x.id === id);
    if (k) index(k);
  };
  for (const accountId of keyDoc.stored()) for (const k of (await keyDoc(accountId)).db.data.keys) index(k);

  return {
    async insertKey(key) {
      const doc = await keyDoc(key.account_id);
      await documents.mutate(doc, (d) => ({ data: { keys: [...d.keys, key] }, result: undefined }));
      reindex(doc, key.id);
    },
    async getKey(id) {
      return byId.get(id) ?? null;
    },
    async findKeyBySecretHash(hash) {
      return byHash.get(hash) ?? null;
    },
    async listKeys(accountId) {
      return (await keyDoc(accountId)).db.data.keys;
    },
    async updateKey(id, update) {
      const known = byId.get(id);
      if (!known) throw new PresenceError('not_found', `no key ${id}`);
      const doc = await keyDoc(known.account_id);
      const result = await documents.mutate(doc, (d) => {
        const i = d.keys.findIndex((k) => k.id === id);
        if (i < 0) throw new PresenceError('not_found', `no key ${id}`);
        const next = update(d.keys[i] as KeyRecord);
        if (next.id !== id || next.account_id !== known.account_id) throw new Error(`key ${id}: id and account are fixed`);
        d.keys[i] = next;
        return { data: d, result: next };
      });
      reindex(doc, id);
      return result;
    },
  };
}
