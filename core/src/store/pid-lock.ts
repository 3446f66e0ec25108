// One process per directory: a pid file taken at start and removed at stop (the server's
// server.pid, the bots' bots.pid), because two processes rewriting the same files would
// silently undo each other's writes. A pid file left by a process that is gone (a crash) holds
// nothing: the next start takes it over.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { PRIVATE_FILE } from './durable-file';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The running process, other than this one, whose pid `file` holds; null when there is none. */
export function pidFileHolder(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8'));
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

// A pid file cannot tell two holders inside one process apart, so those are tracked here.
const heldHere = new Set<string>();

/** Takes `file` for this process, or throws `busy(pid)` while another holds it; answers the release. */
export function takePidFile(file: string, busy: (pid: number) => string): () => void {
  const holder = heldHere.has(file) ? process.pid : pidFileHolder(file);
  if (holder !== null) throw new Error(busy(holder));
  writeFileSync(file, String(process.pid), { mode: PRIVATE_FILE });
  heldHere.add(file);
  return () => {
    heldHere.delete(file);
    rmSync(file, { force: true });
  };
}
