// What reaches the log: a real server with the production logger configuration (only its
// destination captured) answers a 5xx, a 503, link redeems and keyed requests; no line may
// hold a stack trace, an API key, the master key or a link code — in JSON lines (for
// machines) and in the readable lines a terminal gets. And, as a process writes them to
// stdout (asynchronously): one line per request, none lost on a clean shutdown.
// red-team-postgres.test.ts runs it again on PostgreSQL (red-team case 5: link codes in logs).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, type RunningServer, startServer } from '@presence/server';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, removeDir, tempDir } from './harness';
import { spawnServer } from './process';
import { databaseEnvFor, onPostgres } from './test-database';
import { until } from './wallet-helpers';

describe.each(['json', 'pretty'] as const)('log lines (%s)', (format) => {
  const masterKey = 'ab'.repeat(32);
  const lines: string[] = [];
  let dataDir: string;
  let s: RunningServer;
  let live: string;

  beforeAll(async () => {
    dataDir = tempDir();
    const config = loadConfig({
      // Under PRESENCE_TEST_STORE=postgres (red-team-postgres.test.ts), the data directory's own database.
      ...(await databaseEnvFor(dataDir)),
      PRESENCE_DATA_DIR: dataDir,
      PRESENCE_PORT: '0',
      PRESENCE_LOG_LEVEL: 'info',
      PRESENCE_MASTER_KEY: masterKey,
      PRESENCE_LOG_FORMAT: format,
      // The near-miss replay sends several hundred keyed requests.
      PRESENCE_RATE_LIMIT: '5000/60s',
    });
    s = await startServer({ config, logStream: { write: (line) => void lines.push(line) }, maintenanceMs: 0, standingMs: 0, chain: false });
    live = s.bootstrap?.live as string;
  });
  afterAll(async () => {
    await s.close();
    removeDir(dataDir);
  });

  it('holds no stack, no key, no master key and no link code', async () => {
    expect((await call(s.url, 'GET', '/v1/health')).json.store.kind).toBe(onPostgres() ? 'postgres' : 'lowdb');
    const original = s.core.presence.me;
    // A failure core did not foresee: a plain Error thrown deep inside a handler.
    s.core.presence.me = async () => {
      throw new Error('the presence document could not be read');
    };
    const failed = await call(s.url, 'GET', '/v1/presence/me', { key: live });
    expect([failed.status, failed.json.type]).toEqual([500, 'internal']);
    const unavailable = await call(s.url, 'GET', '/v1/wallet', { key: live });
    expect(unavailable.status).toBe(503);

    const link = await call(s.url, 'POST', '/v1/links', { key: live, body: {} });
    expect(link.status).toBe(201);
    const code = link.json.code as string;
    const redeemed = await call(s.url, 'POST', `/v1/links/${code}/redeem`, { body: { surface: 'telegram', user_id: '42', name: 'ada' } });
    expect(redeemed.status).toBe(200);
    const secret = redeemed.json.key as string;
    expect(secret).toMatch(/^prs_live_/);
    const again = await call(s.url, 'POST', `/v1/links/${code}/redeem?x=1`, { body: { surface: 'telegram', user_id: '42', name: 'ada' } });
    expect(again.status).toBe(404);
    expect((await call(s.url, 'GET', '/v1/presence/me', { key: secret })).status).toBe(500);
    s.core.presence.me = original;

    // A request line is written when its response has finished: a marker request after the
    // others, once its own line is there, follows every line the others wrote.
    expect((await call(s.url, 'GET', '/v1/openapi.json')).status).toBe(200);
    await until(() => lines.join('').includes('/v1/openapi.json'), 5_000, 'the marker request line');
    const log = lines.join('');
    // The lines are there (so the checks below mean something): the failure, and redacted URLs.
    expect(log).toContain('unhandled error');
    expect(log).toContain('the presence document could not be read');
    expect(log).toContain('/v1/links/:code/redeem');
    // Fastify's own listen line is not written: the process's ready line says it once.
    expect(log).not.toContain('Server listening at');
    for (const line of lines) {
      const text = format === 'json' ? JSON.stringify(JSON.parse(line)) : line;
      expect(text).not.toMatch(/"stack"|\bat .+:\d+:\d+|\n\s+at /);
      expect(line).not.toContain(code);
      expect(line).not.toContain(live);
      expect(line).not.toContain(secret);
      expect(line).not.toContain(masterKey);
      expect(line).not.toMatch(/prs_(live|test)_/);
      expect(line.toLowerCase()).not.toContain('authorization');
    }
  });

  it("holds no link code, key or secret however the URL or X-Request-Id is spelled (issue 31's forms and a fuzz of near misses)", async () => {
    lines.length = 0;
    const code = (await call(s.url, 'POST', '/v1/links', { key: live, body: {} })).json.code as string;
    const made = await call(s.url, 'POST', '/v1/keys', { key: live, body: { name: 'slip', scopes: ['talk'] } });
    const secret = made.json.secret as string;
    const forms = (c: string) => [
      `/v1/links/${c}`,
      `/v1/links/${c}/`,
      `/v1/links/${c}%2Fredeem`,
      `/v1/links%2F${c}/redeem`,
      `/v1/links%252F${c}`,
      `/v1/link%2573/${c}`,
      `//v1//links//${c}/redeem`,
      `/V1/LINKS/${c}/REDEEM`,
      `/v1/link%73/${c}/redeem`,
      `/v1/links/x/redeem?code=${c}`,
      `/v1/links?code=${c}`,
      `/v1/link/${c}`,
      `/v1/redeem/${c}`,
      `/v1/links${c}`,
      `/v1/links;${c}`,
      `/v1/health?${c}`,
      `/${c}`,
      `/v1/keys/${c}`,
      `/v1/confirm/${c}`,
      `/metrics?${c}`,
      `/v1/keys?key=${c}`,
    ];
    const grouped = code.replace(/(.{5})(?!$)/g, '$1-');
    const urls = [...forms(code), ...forms(code.toLowerCase()), ...forms(grouped), ...forms(secret)];
    // Near misses: each form with its letters cased, escaped or doubled at random, and separators around the secret.
    const nearMisses = fc.sample(
      fc.tuple(
        fc.constantFrom(...forms('\u0000')),
        fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
        fc.constantFrom(code, secret, grouped),
      ),
      { numRuns: 120, seed: 31 },
    );
    for (const [form, rolls, held] of nearMisses) {
      let out = '';
      [...form].forEach((ch, i) => {
        const roll = (rolls[i % rolls.length] as number) + i;
        out += /[a-z]/i.test(ch) && roll % 5 === 0 ? `%${ch.charCodeAt(0).toString(16)}` : roll % 7 === 0 ? ch.toUpperCase() : ch;
      });
      urls.push(out.replace('\u0000', [';', '?', '%3F', '%2F', '#', '/'][(rolls[0] as number) % 6] + held));
    }
    for (const url of urls)
      for (const method of ['GET', 'POST', 'DELETE', 'PATCH']) {
        const r = await call(s.url, method, url, method === 'POST' ? { key: live, body: {} } : { key: live });
        expect(r.text).not.toContain(code);
        if (r.json?.type === 'not_found') expect(r.json.detail).not.toContain('/');
      }
    // The request id, when it holds a secret, is the server's own.
    for (const id of [code, grouped, secret, `req-${code}`, masterKey]) {
      const r = await call(s.url, 'GET', '/v1/health', { headers: { 'x-request-id': id } });
      expect(r.headers.get('x-request-id')).not.toBe(id);
    }
    expect((await call(s.url, 'GET', '/v1/openapi.json')).status).toBe(200);
    await until(() => lines.join('').includes('/v1/openapi.json'), 5_000, 'the marker request line');
    const log = lines.join('');
    expect(log).toContain('/v1/links/:code/redeem');
    expect(log).toContain('/v1/keys/:id');
    // Letters and digits only, upper-cased: neither a grouped, lower-cased nor escaped code survives.
    const plain = log.toUpperCase().replace(/%[0-9A-F]{2}|[^0-9A-Z]/g, '');
    expect(plain).not.toContain(code);
    expect(log).not.toContain(secret.slice(9));
    expect(log.replace(/[^0-9a-z]/gi, '')).not.toContain(secret.slice(9));
    expect(log).not.toContain(masterKey);
  });

  it(format === 'json' ? 'is JSON, one object a line' : 'is one short readable line per request', async () => {
    lines.length = 0;
    expect((await call(s.url, 'GET', '/v1/presence/me', { key: live })).status).toBe(200);
    expect((await call(s.url, 'GET', '/v1/nowhere', { key: live })).status).toBe(404);
    // The last request's line is written once its answer has gone: wait for that line.
    await until(() => lines.some((l) => l.includes('/v1/[unknown]') && l.includes('404')), 5_000, 'the last request line');
    if (format === 'json') {
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
      return;
    }
    expect(lines.map((l) => l.replace(/^\d\d:\d\d:\d\d /, '').replace(/\d+ ms\n$/, 'N ms'))).toEqual([
      'GET /v1/presence/me 200 N ms',
      'GET /v1/[unknown] 404 N ms',
    ]);
  });
});

describe('log lines on stdout (a server process, default logging)', () => {
  it('are one JSON line per request, and a clean shutdown writes every one', async () => {
    const dataDir = tempDir();
    const server = await spawnServer({
      PRESENCE_DATA_DIR: dataDir,
      PRESENCE_PORT: '0',
      PRESENCE_LOG_LEVEL: 'info',
      PRESENCE_LOG_FORMAT: 'json',
      PRESENCE_RATE_LIMIT: '1000/60s',
    });
    try {
      const { live } = JSON.parse(readFileSync(path.join(dataDir, 'bootstrap-keys.json'), 'utf8'));
      const n = 300;
      // Answered, and SIGTERM right after the last answer: the lines may still be buffered.
      for (let i = 0; i < n / 30; i++) {
        const answers = await Promise.all(
          Array.from({ length: 30 }, (_, j) =>
            call(server.url, 'GET', '/v1/presence/me', { key: live, headers: { 'x-request-id': `n-${i * 30 + j}` } }),
          ),
        );
        expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      }
      server.proc.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      const requestLines = server
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l))
        .filter((l) => l.req?.url?.startsWith('/v1/presence/me'));
      expect(requestLines).toHaveLength(n);
      expect(new Set(requestLines.map((l) => l.request_id)).size).toBe(n);
      expect(requestLines.every((l) => l.msg === 'request completed' && l.res.statusCode === 200 && typeof l.request_id === 'string')).toBe(
        true,
      );
    } finally {
      server.proc.kill('SIGKILL');
      removeDir(dataDir);
    }
  });
});
