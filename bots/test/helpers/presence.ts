// The real Presence server on its devnet, in a temporary data dir, with a manual clock so
// a test can let holds expire; plus an admin client (the bootstrap live key).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPresenceClient } from '@presence/client';
import { createManualClock } from '@presence/core';
import { loadConfig, startServer } from '@presence/server';

export const tempDir = (prefix: string) => mkdtempSync(path.join(tmpdir(), prefix));
export const removeDir = (dir: string) => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });

export async function startPresence() {
  const dataDir = tempDir('presence-bots-server-');
  // Starts at the real time so expiry times read naturally; it moves only when the test says.
  const clock = createManualClock(Date.now());
  const server = await startServer({
    config: loadConfig({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0', PRESENCE_HOST: '127.0.0.1', PRESENCE_RATE_LIMIT: '100000/60s' }),
    clock,
    logger: false,
    maintenanceMs: 0,
    standingMs: 0,
    chain: true,
  });
  if (!server.bootstrap) throw new Error('expected a first start with bootstrap keys');
  const admin = createPresenceClient({ baseUrl: server.url, token: server.bootstrap.live });
  return {
    server,
    clock,
    admin,
    /** Moves the server's clock past the default 600 s confirm timeout and runs its expiry sweep. */
    async expireHolds() {
      clock.advance(601_000);
      await server.core.wallet!.confirmations.sweep();
    },
    async close() {
      await server.close();
      removeDir(dataDir);
    },
  };
}

export type Presence = Awaited<ReturnType<typeof startPresence>>;
