import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCore, createLowdbStore, systemClock } from '@presence/core';
import { buildApp } from '@presence/server';
for (const validateResponses of [true, false]) {
  const dir = mkdtempSync(path.join(tmpdir(), 'mb-'));
  const store = await createLowdbStore({ dataDir: dir });
  const core = createCore({ store, clock: systemClock, rateLimit: { limit: 1e9, windowMs: 1000 } });
  const boot = await core.accounts.bootstrap();
  const app = await buildApp({ core, logger: false, validateResponses });
  await app.ready();
  const headers = { authorization: `Bearer ${boot!.live}` };
  const first = await app.inject({ method: 'GET', url: '/v1/presence/me', headers });
  console.log(first.body);
  for (let i = 0; i < 3000; i++) await app.inject({ method: 'GET', url: '/v1/presence/me', headers });
  const n = 20000;
  const t = performance.now();
  for (let i = 0; i < n; i++) await app.inject({ method: 'GET', url: '/v1/presence/me', headers });
  console.log('validate', validateResponses, ((performance.now() - t) * 1000 / n).toFixed(1), 'µs');
  await app.close(); await store.close();
}
