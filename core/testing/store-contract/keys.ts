// The store contract for API keys: found by id and by any secret hash, re-indexed when updated.
// One family's section of the port; describeStoreContract (../store-contract.ts) runs every
// family's, and an adapter may run only some (`sections`).
import { beforeEach, expect, it } from 'vitest';
import type { StorePort } from '../../src/store/store-port';
import { apiKey, type StoreHarness } from '../fixtures';
import type { ContractContext } from './context';

export function keysContract(ctx: ContractContext) {
  ctx.section('keys', () => {
    let h: StoreHarness;
    let store: StorePort;
    beforeEach(() => {
      ({ h, store } = ctx.current());
    });

    it('inserts, reads, lists per account in creation order, and finds a key by any of its secret hashes', async () => {
      await store.insertKey(apiKey('k2', 'a', ['h-old', 'h-new']));
      await store.insertKey(apiKey('k1', 'a', ['h-1']));
      await store.insertKey(apiKey('kb', 'b', ['h-b']));
      expect((await store.listKeys('a')).map((k) => k.id)).toEqual(['k2', 'k1']);
      expect((await store.listKeys('b')).map((k) => k.id)).toEqual(['kb']);
      expect(await store.listKeys('nobody')).toEqual([]);
      expect(await store.getKey('k1')).toEqual(apiKey('k1', 'a', ['h-1']));
      expect(await store.getKey('nope')).toBeNull();
      expect((await store.findKeyBySecretHash('h-old'))?.id).toBe('k2');
      expect((await store.findKeyBySecretHash('h-new'))?.id).toBe('k2');
      expect(await store.findKeyBySecretHash('h-unknown')).toBeNull();
    });

    it('updateKey re-indexes the secret hashes: a rotated-away hash stops finding the key', async () => {
      await store.insertKey(apiKey('k', 'a', ['h-1']));
      const rotated = await store.updateKey('k', (k) => ({ ...k, secrets: [{ hash: 'h-2', last4: 'h-2', valid_until: null }] }));
      expect(rotated?.secrets.map((s) => s.hash)).toEqual(['h-2']);
      expect((await store.findKeyBySecretHash('h-2'))?.id).toBe('k');
      expect(await store.findKeyBySecretHash('h-1')).toBeNull();
      expect((await store.getKey('k'))?.secrets.map((s) => s.hash)).toEqual(['h-2']);
      expect(await store.updateKey('nope', (k) => k)).toBeNull();
    });

    it('concurrent revocation and use stamps from several servers both land', async () => {
      await store.insertKey(apiKey('k', 'a', ['h']));
      const [p, q] = await h.peers(2);
      await Promise.all([
        (p as StorePort).updateKey('k', (k) => ({ ...k, state: 'revoked', revoked_at: 'r' })),
        (q as StorePort).updateKey('k', (k) => ({ ...k, last_used_at: 'u' })),
      ]);
      expect(await store.getKey('k')).toMatchObject({ state: 'revoked', revoked_at: 'r', last_used_at: 'u' });
    });
  });
}
