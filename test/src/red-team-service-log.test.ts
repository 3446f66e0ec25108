// Red-team case 8, replayed against a real server process (red-team-postgres.test.ts runs it
// on PostgreSQL): keys in the service log. With stdout not a terminal (a service manager's
// journal), every stdout line is JSON, the bootstrap keys are only saved to their file (0600)
// and a JSON line names the file; a second start names nothing again.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, removeDir, tempDir } from './harness';
import { spawnServer } from './process';
import { onPostgres } from './test-database';

describe('8. no keys in the service log', () => {
  it('not on a terminal: every stdout line is JSON, the keys are saved 0600 and only their file is named; stops on SIGTERM', async () => {
    const dataDir = tempDir();
    const child = await spawnServer({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0', PRESENCE_LOG_LEVEL: 'info' });
    const file = path.join(dataDir, 'bootstrap-keys.json');
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(child.stdout()).not.toContain(saved.live);
    expect(child.stdout()).not.toMatch(/prs_(live|test)_/);
    expect((await call(child.url, 'GET', '/v1/presence/me', { key: saved.live })).status).toBe(200);
    const health = (await call(child.url, 'GET', '/v1/health')).json;
    expect(health.store.kind).toBe(onPostgres() ? 'postgres' : 'lowdb');
    child.proc.kill('SIGTERM');
    const code = await child.exited;
    expect(code, child.stderr()).toBe(0);
    const lines = child
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ msg: expect.stringMatching(/^Presence listening on /), url: child.url }),
        expect.objectContaining({ account: saved.account, keys_file: file }),
        expect.objectContaining({ msg: 'SIGTERM, shutting down' }),
        expect.objectContaining({ msg: 'request completed' }),
      ]),
    );
    // Every line names the server (PRESENCE_SERVER_ID), the process's own as the request log's.
    expect(lines.filter((l) => l.server !== health.server.id)).toEqual([]);
    // One ready line (not Fastify's own as well), and the last line says how it stopped.
    expect(lines.filter((l) => /listening (on|at) /i.test(l.msg ?? ''))).toHaveLength(1);
    expect(lines.at(-1)).toMatchObject({ msg: 'stopped (exit code 0)' });
    const again = await spawnServer({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0' });
    expect(again.stdout()).not.toContain(saved.live);
    again.proc.kill('SIGINT');
    expect(await again.exited).toBe(0);
    removeDir(dataDir);
  });
});
