// The cluster port on a real PostgreSQL: two handles on one database stand for two servers.
// Wake-ups carry the account (colons and all) to every handle, a dropped listening connection
// is followed by a resync, and rate limits count both handles' requests: exactly up to
// EXACT_MAX per window, approximately (two buckets) above it.
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { useMigratedPostgres } from '../../../testing/migrated-postgres';
import { createManualClock } from '../../clock/clock';
import { createPostgresStore } from '../../store/postgres/postgres-store';
import type { SharedRateLimiter } from '../cluster-port';
import { createPostgresCluster, EXACT_MAX, type PostgresCluster, parseEventsNotice } from './cluster';

const pg = useMigratedPostgres();

async function twoServers(clock = createManualClock()) {
  const url = await pg.fresh();
  const handles: PostgresCluster[] = [
    await createPostgresCluster({ url, clock, max: 2 }),
    await createPostgresCluster({ url, clock, max: 2 }),
  ];
  return { url, clock, handles, close: () => Promise.all(handles.map((h) => h.close())) };
}

describe('cluster port on PostgreSQL', () => {
  it('parses notices whose account id holds colons', () => {
    expect(parseEventsNotice('acct:with:colons:42')).toEqual({ accountId: 'acct:with:colons', id: 42 });
    expect(parseEventsNotice('nonsense')).toBeNull();
  });

  it('an append on one server wakes the other with its account; a dropped listener resyncs', async () => {
    const { url, handles, close } = await twoServers();
    const store = await createPostgresStore({ url, migrate: false, max: 2 });
    try {
      const woken: string[] = [];
      let resyncs = 0;
      let onWake: () => void = () => undefined;
      handles[1]?.eventsWake.subscribe({
        wake: (a) => {
          woken.push(a);
          onWake();
        },
        resync: () => {
          resyncs++;
          onWake();
        },
      });
      const arrived = new Promise<void>((r) => (onWake = r));
      await store.appendEvent('team:ops', { type: 'memory', data: {}, at: 0 });
      await arrived;
      expect(woken).toEqual(['team:ops']);
      // Cut every listening connection: the driver reconnects and says so; the log resyncs.
      const before = resyncs;
      const resynced = new Promise<void>((r) => {
        onWake = () => {
          if (resyncs > before) r();
        };
      });
      const admin = postgres(url, { max: 1, onnotice: () => undefined });
      await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE query ILIKE 'listen%' AND pid <> pg_backend_pid()`;
      await admin.end();
      await resynced;
      expect(resyncs).toBeGreaterThan(before);
    } finally {
      await store.close();
      await close();
    }
  });

  it('a key changed through any store reaches every server as its id; a dropped listener resyncs the keys', async () => {
    const { url, handles, close } = await twoServers();
    const store = await createPostgresStore({ url, migrate: false, max: 2 });
    try {
      const heard: string[] = [];
      let resyncs = 0;
      let onChange: () => void = () => undefined;
      handles[1]?.keyChanges.subscribe({
        changed: (id) => {
          heard.push(id);
          onChange();
        },
        resync: () => {
          resyncs++;
          onChange();
        },
      });
      await store.createAccount({ id: 'acct', created_at: '', presence: { name: 'p', model: 'local', preferences: {} } } as never);
      await store.insertKey({
        id: 'key_1',
        account_id: 'acct',
        kind: 'live',
        name: 'k',
        scopes: [],
        secrets: [],
        state: 'active',
        created_at: '',
        last_used_at: null,
        revoked_at: null,
      });
      const arrived = new Promise<void>((r) => (onChange = r));
      await store.updateKey('key_1', (k) => ({ ...k, state: 'revoked' }));
      await arrived;
      expect(heard).toEqual(['key_1']);
      const resynced = new Promise<void>((r) => (onChange = r));
      const admin = postgres(url, { max: 1, onnotice: () => undefined });
      await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query ILIKE 'listen%' AND pid <> pg_backend_pid()`;
      await admin.end();
      await resynced;
      expect(resyncs).toBeGreaterThan(0);
    } finally {
      await store.close();
      await close();
    }
  });

  it('a failure budget counts on every server; a full one is refused everywhere without asking the database', async () => {
    const { url, clock, handles, close } = await twoServers();
    const opts = { limit: 2, windowMs: 60_000 };
    const [p, q] = handles.map((h) => h.failureBudget('auth-failures', opts)) as [SharedRateLimiter, SharedRateLimiter];
    const until = async (check: () => Promise<boolean>) => {
      for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
      return check();
    };
    try {
      expect((await p.hit('10.0.0.1')).remaining).toBe(1);
      clock.advance(1_000);
      expect((await q.hit('10.0.0.1')).remaining).toBe(0); // counted with p's: the window is full
      expect((await q.peek('10.0.0.1')).allowed).toBe(false);
      // p hears of it (NOTIFY), and answers from memory.
      expect(await until(async () => !(await p.peek('10.0.0.1')).allowed)).toBe(true);
      expect((await p.peek('10.0.0.2')).allowed).toBe(true);
      // A server that starts now reads the standing blocks.
      const late = await createPostgresCluster({ url, clock, max: 2 });
      try {
        const r = late.failureBudget('auth-failures', opts);
        expect(await until(async () => !(await r.peek('10.0.0.1')).allowed)).toBe(true);
        // Until the first failure leaves the window: then one more attempt is let through.
        clock.advance(59_000);
        for (const b of [p, q, r]) expect(await b.peek('10.0.0.1')).toMatchObject({ allowed: true });
      } finally {
        await late.close();
      }
    } finally {
      await close();
    }
  });

  it('an exact window counts both servers: N pass in any mix, the next is refused on either', async () => {
    const { clock, handles, close } = await twoServers();
    try {
      const [p, q] = handles.map((h) => h.rateLimiter('key', { limit: 4, windowMs: 60_000 })) as [
        ReturnType<PostgresCluster['rateLimiter']>,
        ReturnType<PostgresCluster['rateLimiter']>,
      ];
      const got = [];
      for (const l of [p, q, q, p]) {
        got.push(await l.hit('k1'));
        clock.advance(1_000);
      }
      expect(got.map((d) => [d.allowed, d.remaining])).toEqual([
        [true, 3],
        [true, 2],
        [true, 1],
        [true, 0],
      ]);
      expect((await q.hit('k1')).allowed).toBe(false);
      expect((await p.peek('k1')).allowed).toBe(false);
      expect((await p.hit('k2')).allowed).toBe(true); // ids are apart
      // The oldest leaves the window: one more passes, on either server.
      clock.advance(56_000);
      expect((await q.hit('k1')).allowed).toBe(true);
      expect((await p.hit('k1')).allowed).toBe(false);
      // Racing hits never overshoot.
      const racing = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? p : q).hit('k3')));
      expect(racing.filter((d) => d.allowed)).toHaveLength(4);
    } finally {
      await close();
    }
  });

  it(`a window above ${EXACT_MAX} is two buckets: counted on both servers, the previous one weighted`, async () => {
    const clock = createManualClock(0);
    const { handles, close } = await twoServers(clock);
    try {
      const limit = EXACT_MAX + 1_000;
      const [p, q] = handles.map((h) => h.rateLimiter('big', { limit, windowMs: 1_000 })) as [
        ReturnType<PostgresCluster['rateLimiter']>,
        ReturnType<PostgresCluster['rateLimiter']>,
      ];
      await Promise.all(Array.from({ length: limit }, (_, i) => (i % 2 ? p : q).hit('k')));
      expect((await p.hit('k')).allowed).toBe(false);
      // Half way through the next bucket half of the previous one still counts.
      clock.advance(1_500);
      const d = await q.peek('k');
      expect(d.remaining).toBe(limit - Math.ceil(limit / 2));
      expect((await q.hit('k')).allowed).toBe(true);
    } finally {
      await close();
    }
  });
});
