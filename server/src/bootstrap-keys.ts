// $PRESENCE_DATA_DIR/bootstrap-keys.json: the first start's keys for scripts and tests. Core's
// bootstrap saves them here before storing them, so the file is written atomically and
// durably (temp file, fsync, rename, directory fsync): a crash leaves the old file or the
// new one, never half of one, and never keys that work but were not saved.
// Until a start has listened and shown them, a marker file sits beside them: a first start
// that fails (say, its port is taken) has saved and stored the keys, so core will not hand
// them over again; the marker tells the next start that listens to show them, once.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Core } from '@presence/core';
import { z } from 'zod';

type BootstrapKeys = NonNullable<Parameters<Core['accounts']['bootstrap']>[0]['saved']>;

export const BOOTSTRAP_KEYS_FILE = 'bootstrap-keys.json';
const UNSHOWN_MARKER = 'bootstrap-keys.unshown';

const syncDir = (dir: string) => {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
};

const BootstrapFile = z.object({
  account: z.string().min(1),
  live: z.string().regex(/^prs_live_[0-9A-Za-z]{32,128}$/),
  test: z.string().regex(/^prs_test_[0-9A-Za-z]{32,128}$/),
});

/**
 * What core's bootstrap needs (the keys saved earlier, null if none or unreadable, and how to
 * save), plus the keys saved but never shown and how to record that they were.
 */
export function bootstrapKeysFile(dataDir: string) {
  const file = path.join(dataDir, BOOTSTRAP_KEYS_FILE);
  const marker = path.join(dataDir, UNSHOWN_MARKER);
  let saved: BootstrapKeys | null = null;
  try {
    const parsed = BootstrapFile.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    saved = parsed.success ? parsed.data : null;
  } catch {
    saved = null; // missing (or not JSON): nothing was saved
  }
  return {
    get saved() {
      return saved;
    },
    async save(keys: BootstrapKeys) {
      // Before the keys: saved keys without the marker count as shown.
      writeFileSync(marker, '');
      const tmp = `${file}.${process.pid}.tmp`;
      rmSync(tmp, { force: true }); // a leftover would keep its own mode
      const fd = openSync(tmp, 'wx', 0o600);
      try {
        writeSync(fd, `${JSON.stringify(keys, null, 2)}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      try {
        renameSync(tmp, file);
      } catch (e) {
        rmSync(tmp, { force: true });
        throw e;
      }
      syncDir(dataDir);
      saved = keys;
    },
    /** Keys saved earlier that no start has shown yet (its listen failed). */
    unshown(): BootstrapKeys | null {
      return saved && existsSync(marker) ? saved : null;
    },
    markShown() {
      if (!existsSync(marker)) return;
      rmSync(marker, { force: true });
      syncDir(dataDir);
    },
  };
}
