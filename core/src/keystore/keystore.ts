// Secrets at rest (wallet private keys, stored Idempotency-Key answers): AES-256-GCM under a
// 32-byte master key, bound by associated data to what they belong to (a wallet's account and
// address, an answer's account and request) so a ciphertext moved to another record fails to
// open. Other uses of the master key (e.g. the MAC that hashes link codes) get subkeys derived
// with HKDF under a label of their own, never the master key itself. The master key comes from
// PRESENCE_MASTER_KEY or a generated 0600 file in the 0700 data directory.
import { hkdfSync } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { openParts, sealParts } from './aead';
import { loadOrCreateKeyFile } from './key-file';

export type SealedKey = { iv: string; tag: string; data: string };

export function loadOrCreateMasterKey({ configured, dataDir }: { configured?: string | undefined; dataDir: string }): Buffer {
  if (configured) return Buffer.from(configured, 'hex');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  return loadOrCreateKeyFile(path.join(dataDir, 'master.key'));
}

export type Keystore = ReturnType<typeof createKeystore>;

export function createKeystore(masterKey: Buffer) {
  if (masterKey.length !== 32) throw new Error('the master key must be 32 bytes');
  const walletContext = (accountId: string, address: string) => `presence-wallet:${accountId}:${address.toLowerCase()}`;

  /** Seals any secret text; `context` (associated data) names what it belongs to, so a
   * ciphertext moved to another record or purpose does not open. */
  function sealText(context: string, plain: string): SealedKey {
    const { iv, tag, data } = sealParts(masterKey, context, plain);
    return { iv: iv.toString('base64'), tag: tag.toString('base64'), data: data.toString('base64') };
  }
  function openText(context: string, sealed: SealedKey): string {
    const part = (b64: string) => Buffer.from(b64, 'base64');
    return openParts(masterKey, context, { iv: part(sealed.iv), tag: part(sealed.tag), data: part(sealed.data) });
  }

  return {
    /**
     * A 32-byte key for one purpose, derived from the master key with HKDF-SHA-256. `info`
     * names the purpose (distinct labels give independent keys); a subkey that leaks reveals
     * neither the master key nor any other subkey.
     */
    subkey: (info: string): Buffer => Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), info, 32)),
    sealText,
    openText,
    seal: (accountId: string, address: string, privateKey: string): SealedKey => sealText(walletContext(accountId, address), privateKey),
    open: (accountId: string, address: string, sealed: SealedKey): `0x${string}` =>
      openText(walletContext(accountId, address), sealed) as `0x${string}`,
  };
}
