// What GET /v1/presence/me shows, kept in memory by servers sharing one PostgreSQL: two cores
// (each with its own pool and cluster handle) stand for two servers. A warm read asks the
// store nothing; a change on either server shows in the next read on the other once its
// notification arrives, and at once on the server that made it.
import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { useMigratedPostgres } from '../../../testing/migrated-postgres';
import { systemClock } from '../../clock/clock';
import { createPostgresCluster } from '../../cluster/postgres/cluster';
import { createCore } from '../../create-core';
import type { Principal } from '../../keys/key-service';
import { createKeystore } from '../../keystore/keystore';
import type { SharedStore } from '../store-port';
import { openDatabase } from './database';
import { createPostgresStore } from './postgres-store';

const pg = useMigratedPostgres();

/** A server: its pool, store (whose port calls are counted) and cluster handle, and the core on them. */
async function server(url: string) {
  const sql = openDatabase(url, { max: 3 });
  const store = await createPostgresStore({ sql, migrate: false, keystore: createKeystore(randomBytes(32)) });
  const cluster = await createPostgresCluster({ sql, clock: systemClock });
  let calls = 0;
  const counted = new Proxy(store, {
    get(target, name, receiver) {
      const v = Reflect.get(target, name, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        calls++;
        return Reflect.apply(v, target, args);
      };
    },
  }) as SharedStore;
  const core = createCore({ store: counted, cluster, clock: systemClock, rateLimit: { limit: 1_000, windowMs: 60_000 } });
  return {
    core,
    calls: () => calls,
    close: async () => {
      await cluster.close();
      await store.close();
      await sql.end();
    },
  };
}

describe('account views on PostgreSQL', () => {
  it('a warm read asks the store nothing; changes show on the server that made them at once, on the other once heard', async () => {
    const url = await pg.fresh();
    const [a, b] = [await server(url), await server(url)];
    try {
      await a.core.accounts.create('acct');
      const p: Principal = { keyId: 'key_x', accountId: 'acct', kind: 'live', scopes: ['admin'], validUntil: null, secretHash: 'h' };
      const first = await a.core.presence.me(p);
      const before = a.calls();
      expect(await a.core.presence.me(p)).toEqual(first);
      expect(a.calls() - before).toBe(0);
      await b.core.presence.me(p); // b keeps it too
      // Changed on b: b answers the change at once, a once its notification arrives.
      expect((await b.core.presence.patch(p, { name: 'renamed' })).name).toBe('renamed');
      expect((await b.core.presence.me(p)).name).toBe('renamed');
      await vi.waitFor(async () => expect((await a.core.presence.me(p)).name).toBe('renamed'), { timeout: 500, interval: 20 });
      // A pin on a moves its counts on a at once, and on b once heard.
      await a.core.memory.pin({ accountId: 'acct', kind: 'live' }, 'token:WETH');
      expect((await a.core.presence.me(p)).memory).toEqual({ pinned: 1, fading: 0 });
      await vi.waitFor(async () => expect((await b.core.presence.me(p)).memory).toEqual({ pinned: 1, fading: 0 }), {
        timeout: 500, // under the second after which an entry is read again anyway
        interval: 20,
      });
      // A test key's view is never kept (its overlay is its own).
      const t = { ...p, kind: 'test' as const };
      const asked = a.calls();
      await a.core.presence.me(t);
      expect(a.calls()).toBeGreaterThan(asked);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
