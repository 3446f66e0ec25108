// Keys at rest: AES-256-GCM under a 32-byte key kept in its own 0600 file beside the link
// table, generated on first use. Each sealed value carries its own random IV and is bound
// (as associated data) to the record it belongs to, so a value copied into another user's
// record does not open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

export type SecretBox = {
  seal(plain: string, context: string): string;
  open(sealed: string, context: string): string;
};

const VERSION = 'v1';

/** Reads the key file, or creates it (mode 0600) when it does not exist yet. */
export function loadOrCreateKey(file: string): Buffer {
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
    // Someone else created it between our read and write: use theirs.
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return parseKey(readFileSync(file, 'utf8'), file);
    throw e;
  }
}

function parseKey(text: string, file: string): Buffer {
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${file} does not hold a 32-byte hex key`);
  return Buffer.from(hex, 'hex');
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new RangeError('an AES-256 key is 32 bytes');
  return {
    seal(plain, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv, cipher.getAuthTag(), body].map((x) => (typeof x === 'string' ? x : x.toString('base64url'))).join('.');
    },
    open(sealed, context) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed value');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
