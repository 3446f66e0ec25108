// The master key's check value: kept beside the secrets it seals (the data directory, or the
// database), so a server started with another PRESENCE_MASTER_KEY stops at once instead of
// passing /v1/ready and failing every wallet write and stored answer with "unable to
// authenticate data". The value is an HKDF subkey under a label of its own (16 bytes): it
// reveals neither the master key nor any other subkey. During a rotation the record names
// both keys' values, and a server refuses to start with either until the rotation finishes.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Keystore } from '../keystore/keystore';
import { writeFileAtomic } from './durable-file';

export type MasterKeyCheck = { check: string; rotating_to?: string };

/** Where the check value is kept: `init` stores it unless one is (first writer wins) and answers what is stored. */
export type MasterKeyCheckPort = {
  read(): Promise<MasterKeyCheck | null>;
  init(value: MasterKeyCheck): Promise<MasterKeyCheck>;
  write(value: MasterKeyCheck): Promise<void>;
  close?(): Promise<void>;
};

/** The key is not the store's (or a rotation is under way): the message says which, in one line. */
export class MasterKeyMismatch extends Error {}

export const masterKeyCheckValue = (keystore: Keystore) => keystore.subkey('presence master key check v1').subarray(0, 16).toString('hex');

/** Why the key cannot be used on this store, or null when it is the store's key. */
export function masterKeyMismatch(stored: MasterKeyCheck, keystore: Keystore): string | null {
  const mine = masterKeyCheckValue(keystore);
  if (stored.rotating_to !== undefined)
    return 'a master key rotation is under way on this store: finish it with `presence-server rotate-master-key` (it is safe to run again)';
  return stored.check === mine ? null : 'it is not the key this store’s wallets and answers are sealed with';
}

/**
 * Checks the key against the stored value; on a store that has none yet (a first start, or
 * one kept by an earlier version) stores it — after `sealedByThisKey` confirmed that the
 * secrets already kept, if any, open with it. Throws MasterKeyMismatch on a mismatch.
 */
export async function verifyMasterKey(port: MasterKeyCheckPort, keystore: Keystore, sealedByThisKey: () => Promise<boolean>) {
  let stored = await port.read();
  if (!stored) {
    if (!(await sealedByThisKey())) throw new MasterKeyMismatch('it does not open the wallets already stored');
    stored = await port.init({ check: masterKeyCheckValue(keystore) });
  }
  const wrong = masterKeyMismatch(stored, keystore);
  if (wrong) throw new MasterKeyMismatch(wrong);
}

/** The embedded store's check value: `master-key-check.json` in the data directory. */
export function fileMasterKeyCheck(dataDir: string): MasterKeyCheckPort {
  const file = path.join(dataDir, 'master-key-check.json');
  const read = async (): Promise<MasterKeyCheck | null> => {
    try {
      return JSON.parse(await readFile(file, 'utf8')) as MasterKeyCheck;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  };
  const write = (value: MasterKeyCheck) => writeFileAtomic(file, `${JSON.stringify(value)}\n`);
  return {
    read,
    write,
    // The data directory has one process (its lock): read-then-write is enough.
    async init(value) {
      const stored = await read();
      if (stored) return stored;
      await write(value);
      return value;
    },
  };
}

/** Replaces the generated key file (rotate-master-key): atomically and durably, 0600. */
export async function writeMasterKeyFile(file: string, hex: string): Promise<void> {
  await writeFileAtomic(file, `${hex}\n`);
}
