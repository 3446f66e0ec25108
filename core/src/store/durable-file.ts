// Durable whole-file writes. A rename is atomic but not durable by itself: until the temp
// file's data is fsynced, a power loss can leave the renamed file empty or short, and until
// the directory is fsynced the rename itself can be forgotten (the old file comes back). An
// answered write must survive both, so both are synced before the write resolves.
// Everything under the data directory is private: files are created 0600, directories 0700.
import { open, rename } from 'node:fs/promises';
import path from 'node:path';

/** Modes of what Presence keeps: readable by the server's user only. */
export const PRIVATE_FILE = 0o600;
export const PRIVATE_DIR = 0o700;

/** Makes the directory's entries (creations, renames) durable. */
export async function fsyncDir(dir: string): Promise<void> {
  // Windows cannot open a directory for fsync; NTFS journals the rename itself.
  if (process.platform === 'win32') return;
  const h = await open(dir, 'r');
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

/**
 * Replaces `file` with `text` atomically (temp file + rename) and, with `fsync` (the
 * default), durably. Callers serialize writes to one file: the temp name is fixed, so a
 * crash leaves at most one stale temp file, overwritten by the next write.
 */
export async function writeFileAtomic(file: string, text: string, { fsync = true }: { fsync?: boolean } = {}): Promise<void> {
  const tmp = `${file}.tmp`;
  // A new temp file is private from its first byte (the rename gives the file its mode); a
  // stale one left by an earlier version keeps its own mode, but the start fixes those.
  const h = await open(tmp, 'w', PRIVATE_FILE);
  try {
    await h.writeFile(text);
    // fsync, not fdatasync: the temp file is new, so its size and blocks are metadata too.
    if (fsync) await h.sync();
  } finally {
    await h.close();
  }
  await rename(tmp, file);
  if (fsync) await fsyncDir(path.dirname(file));
}
