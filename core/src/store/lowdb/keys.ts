// API keys: one document per account (data/keys/<account>.json), found by id or secret hash
// through the lookup index (lookups.ts) without opening every account's document at start:
// authentication is a map lookup and, the first time an account is seen, one document read.
// A key write rewrites only its account's document.
import { z } from 'zod';
import { KeyRecord } from '../documents';
import type { KeysPort } from '../keys-port';
import type { Lookups } from './lookups';
import { accountDocuments, type StoreContext } from './per-account';

const KeysDoc = z.object({ keys: z.array(KeyRecord) });

export async function openKeys(ctx: StoreContext, lookups: Lookups): Promise<KeysPort> {
  const { documents } = ctx;
  const keyDoc = accountDocuments(ctx, 'keys', KeysDoc, { keys: [] });
  await keyDoc.indexOnce(lookups, async (accountId, { keys }) => {
    for (const k of keys)
      await lookups.addKey(
        k.id,
        accountId,
        k.secrets.map((x) => x.hash),
      );
  });
  const getKey = async (id: string): Promise<KeyRecord | null> => {
    const accountId = lookups.accountOfKey(id);
    if (accountId === undefined) return null;
    return (await keyDoc.read(accountId)).keys.find((k) => k.id === id) ?? null;
  };

  return {
    async insertKey(key) {
      await keyDoc.use(key.account_id, async (doc) => {
        await lookups.addKey(
          key.id,
          key.account_id,
          key.secrets.map((s) => s.hash),
        );
        await documents.mutate(doc, (d) => ({ data: { keys: [...d.keys, key] }, result: undefined }));
      });
    },
    getKey,
    async findKeyBySecretHash(hash) {
      const id = lookups.keyOf(hash);
      const k = id === undefined ? null : await getKey(id);
      // A hash rotated away still points at its key in the index; the key no longer has it.
      return k?.secrets.some((s) => s.hash === hash) ? k : null;
    },
    async listKeys(accountId) {
      return (await keyDoc.read(accountId)).keys;
    },
    async updateKey(id, update) {
      const accountId = lookups.accountOfKey(id);
      if (accountId === undefined) return null;
      // New secret hashes are indexed before the document that holds them is written.
      const planned = (await keyDoc.read(accountId)).keys.find((k) => k.id === id);
      if (!planned) return null;
      await lookups.addKey(
        id,
        accountId,
        update(structuredClone(planned)).secrets.map((s) => s.hash),
      );
      return keyDoc.mutate(accountId, (d) => {
        const i = d.keys.findIndex((k) => k.id === id);
        if (i < 0) return { data: d, result: null };
        const next = update(d.keys[i] as KeyRecord);
        if (next.id !== id || next.account_id !== accountId) throw new Error(`key ${id}: id and account are fixed`);
        d.keys[i] = next;
        return { data: d, result: next };
      });
    },
  };
}
