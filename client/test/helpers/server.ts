// A real Presence server on 127.0.0.1, port 0, in a temporary data dir; closed and removed after.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type RunningServer, startServer } from '@presence/server';

export type TestServer = RunningServer & { dataDir: string; live: string; test: string; stop(): Promise<void> };

export function tempDir(prefix = 'presence-client-') {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** Without `chain: true` no devnet is started (wallet routes then answer chain_unavailable): cheaper. */
export async function startTestServer(options: { chain?: boolean; env?: Record<string, string> } = {}): Promise<TestServer> {
  const dataDir = tempDir();
  const server = await startServer({
    config: loadConfig({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0', PRESENCE_HOST: '127.0.0.1', ...options.env }),
    logger: false,
    maintenanceMs: 0,
    standingMs: 0,
    chain: options.chain ?? false,
  });
  if (!server.bootstrap) throw new Error('expected a first start with bootstrap keys');
  return {
    ...server,
    dataDir,
    live: server.bootstrap.live,
    test: server.bootstrap.test,
    async stop() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    },
  };
}
