// One server per data directory: a pid file taken at start, released at stop. The operator
// CLI checks it too, because two processes rewriting the same lowdb documents would
// silently undo each other's writes. (The pid file itself is core's: the bots hold one too.)
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PRIVATE_DIR, pidFileHolder, takePidFile } from '@presence/core/files';

const pidFile = (dataDir: string) => path.join(dataDir, 'server.pid');

export const lockHolder = (dataDir: string): number | null => pidFileHolder(pidFile(dataDir));

export function takeDataDirLock(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR });
  return takePidFile(pidFile(dataDir), (pid) => `another Presence server (or presence-server command, pid ${pid}) is using ${dataDir}`);
}
