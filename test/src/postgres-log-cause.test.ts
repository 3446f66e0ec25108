// A server on PostgreSQL that loses its database while serving: each 503 store_unavailable is
// logged with the driver's error under it (its code, its words), so an operator can tell a
// refused connection from a database that turns connections away — and nothing of the
// connection string (its password, its user) reaches a log line. The production logger runs
// as configured, only its destination captured.
import { loadConfig, startServer } from '@presence/server';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { call, removeDir, tempDir } from './harness';
import { freshDatabaseEnv } from './test-database';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) removeDir(d);
});

describe('the log line of a 503 store_unavailable', () => {
  it("names the driver's error under it, without the database's credentials", async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const env = await freshDatabaseEnv();
    const url = new URL(env.PRESENCE_DATABASE_URL as string);
    const lines: string[] = [];
    const config = loadConfig({
      ...env,
      PRESENCE_DATA_DIR: dataDir,
      PRESENCE_PORT: '0',
      PRESENCE_HOST: '127.0.0.1',
      PRESENCE_LOG_FORMAT: 'json',
    });
    const s = await startServer({ config, logStream: { write: (l) => void lines.push(l) }, maintenanceMs: 0, standingMs: 0, chain: false });
    const database = url.pathname.slice(1);
    const admin = postgres(Object.assign(new URL(url), { pathname: '/postgres' }).href, { max: 1, onnotice: () => undefined });
    try {
      const live = s.bootstrap?.live as string;
      expect((await call(s.url, 'GET', '/v1/memory', { key: live })).status).toBe(200);
      await admin.unsafe(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
      await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${database}`;
      const r = await call(s.url, 'GET', '/v1/memory', { key: live });
      expect([r.status, r.json?.type]).toEqual([503, 'store_unavailable']);
      const requestId = r.headers.get('x-request-id');
      const [line] = lines.map((l) => JSON.parse(l)).filter((l) => l.request_id === requestId && l.msg === 'answered with a 5xx problem');
      expect(line?.err).toMatchObject({ type: 'store_unavailable', detail: expect.stringMatching(/^the database failed during /) });
      // The driver's error: a PostgresError with its SQLSTATE, or a connection error with its code.
      const root = line.err.cause?.at(-1);
      expect(root).toMatchObject({ type: expect.any(String), message: expect.any(String), code: expect.any(String) });
      expect(line.err.detail).toContain(`(${root.code})`);
    } finally {
      await admin.unsafe(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`).catch(() => undefined);
      await admin.end();
      await s.close();
    }
    for (const l of lines) {
      expect(l).not.toContain(url.password);
      expect(l).not.toContain(`${url.username}:`);
      expect(l).not.toContain(url.href);
    }
  });
});
