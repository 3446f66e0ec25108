// Keys at rest: AES-256-GCM under a 32-byte key kept in its own 0600 file beside the link
// table, generated on first use. Each sealed value carries its own random IV and is bound
// (as associated data) to the record it belongs to, so a value copied into another user's
// record does not open.
import { openParts, sealParts } from '@presence/core/files';

export type SecretBox = {
  seal(plain: string, context: string): string;
  open(sealed: string, context: string): string;
};

const VERSION = 'v1';

/** Sealed values as `v1.<iv>.<tag>.<ciphertext>`, each part base64url; the cipher is core's. */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new RangeError('an AES-256 key is 32 bytes');
  return {
    seal(plain, context) {
      const { iv, tag, data } = sealParts(key, context, plain);
      return [VERSION, ...[iv, tag, data].map((b) => b.toString('base64url'))].join('.');
    },
    open(sealed, context) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed value');
      const part = (b64: string) => Buffer.from(b64, 'base64url');
      return openParts(key, context, { iv: part(iv), tag: part(tag), data: part(body) });
    },
  };
}
