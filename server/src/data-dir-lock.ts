// One server per data directory: a pid file taken at start, released at stop. The operator
// CLI checks it too, because two processes rewriting the same lowdb documents would
// silently undo each other's writes.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export function lockHolder(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'server.pid'), 'utf8'));
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

// The pid file cannot tell two servers inside one process apart, so those are tracked here.
const heldHere = new Set<string>();

export function takeDataDirLock(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const holder = heldHere.has(dataDir) ? process.pid : lockHolder(dataDir);
  if (holder !== null) throw new Error(`another Presence server (or presence-server command, pid ${holder}) is using ${dataDir}`);
  const file = path.join(dataDir, 'server.pid');
  writeFileSync(file, String(process.pid), { mode: 0o600 });
  heldHere.add(dataDir);
  return () => {
    heldHere.delete(dataDir);
    rmSync(file, { force: true });
  };
}
