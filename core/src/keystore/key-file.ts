// A 32-byte key kept in a file of its own as 64 hex characters: the server's master.key, the
// bots' links.key. Made on first use, private (0600) from its first byte, never overwritten.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

/** Reads the key in `file`, or creates one there when there is none yet. */
export function loadOrCreateKeyFile(file: string): Buffer {
  try {
    return parseKey(readFileSync(file, 'utf8'), file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const key = randomBytes(32);
  try {
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (e) {
    // Another process created it between our read and write: use theirs.
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return parseKey(readFileSync(file, 'utf8'), file);
    throw e;
  }
}

function parseKey(text: string, file: string): Buffer {
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${file} does not hold a 32-byte key (64 hex characters)`);
  return Buffer.from(hex, 'hex');
}
