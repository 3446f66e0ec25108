// Secrets at rest (wallet private keys, stored Idempotency-Key answers): AES-256-GCM under a
// 32-byte master key, bound by associated data to what they belong to (a wallet's account and
// address, an answer's account and request) so a ciphertext moved to another record fails to
// open. Other uses of the master key (e.g. the MAC that hashes link codes) get subkeys derived
// with HKDF under a label of their own, never the master key itself. The master key comes from
// PRESENCE_MASTER_KEY or a generated 0600 file in the 0700 data directory.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type SealedKey = { iv: string; tag: string; data: string };

export function loadOrCreateMasterKey({ configured, dataDir }: { configured?: string | undefined; dataDir: string }): Buffer {
  if (configured) return Buffer.from(configured, 'hex');
  const file = path.join(dataDir, 'master.key');
  if (existsSync(file)) {
    const hex = readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${file} is not 64 hex characters`);
    return Buffer.from(hex, 'hex');
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

export type Keystore = ReturnType<typeof createKeystore>;

export function createKeystore(masterKey: Buffer) {
  if (masterKey.length !== 32) throw new Error('the master key must be 32 bytes');
  const walletContext = (accountId: string, address: string) => `presence-wallet:${accountId}:${address.toLowerCase()}`;

  /** Seals any secret text; `context` (associated data) names what it belongs to, so a
   * ciphertext moved to another record or purpose does not open. */
  function sealText(context: string, plain: string): SealedKey {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', masterKey, iv);
    c.setAAD(Buffer.from(context));
    const data = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return { iv: iv.toString('base64'), tag: c.getAuthTag().toString('base64'), data: data.toString('base64') };
  }
  function openText(context: string, sealed: SealedKey): string {
    const d = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(sealed.iv, 'base64'));
    d.setAAD(Buffer.from(context));
    d.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([d.update(Buffer.from(sealed.data, 'base64')), d.final()]).toString('utf8');
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
