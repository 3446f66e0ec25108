// Vitest global setup for the component tests: one real Presence server (embedded devnet
// included) for the whole run, started in Node outside the jsdom environment (jsdom's URL
// and Uint8Array would break the chain code). Each test file gets its own account, so counts
// (held actions, the thread) never leak between files. Values reach the tests via inject().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, startServer } from '@presence/server';
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';

export const ACCOUNTS = ['chat', 'wallet', 'pending', 'options', 'popup', 'worker'] as const;
export type AccountName = (typeof ACCOUNTS)[number];

declare module 'vitest' {
  export interface ProvidedContext {
    serverUrl: string;
    /** Admin key of each test account. */
    adminKeys: Record<AccountName, string>;
  }
}

export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'presence-ext-'));
  const env = { PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0', PRESENCE_HOST: '127.0.0.1', PRESENCE_RATE_LIMIT: '100000/60s' };
  const server = await startServer({
    config: loadConfig(env as unknown as NodeJS.ProcessEnv),
    logger: false,
    maintenanceMs: 0,
    standingMs: 0,
    chain: true,
  });
  const adminKeys = {} as Record<AccountName, string>;
  for (const name of ACCOUNTS) adminKeys[name] = (await server.core.accounts.create(name)).admin.secret;
  project.provide('serverUrl', server.url);
  project.provide('adminKeys', adminKeys);
  return async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
