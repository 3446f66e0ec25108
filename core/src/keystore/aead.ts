// The one cipher secrets are sealed with: AES-256-GCM under a 32-byte key with a fresh 12-byte
// IV each time, bound by associated data (`context`) to what the secret belongs to, so a
// ciphertext moved to another record or purpose does not open. The keystore (wallet keys,
// stored answers) and the bots (the keys they keep) each encode the parts their own way.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export type SealedParts = { iv: Buffer; tag: Buffer; data: Buffer };

export function sealParts(key: Buffer, context: string, plain: string): SealedParts {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(context));
  const data = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return { iv, tag: c.getAuthTag(), data };
}

/** Throws when the key, the context or any part is not the one it was sealed with. */
export function openParts(key: Buffer, context: string, { iv, tag, data }: SealedParts): string {
  const d = createDecipheriv('aes-256-gcm', key, iv);
  d.setAAD(Buffer.from(context));
  d.setAuthTag(tag);
  return Buffer.concat([d.update(data), d.final()]).toString('utf8');
}
