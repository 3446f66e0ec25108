// Key material: generating secrets and ids, recognising their shape, hashing for storage.
// Secrets are 40 base62 characters (~238 bits), so a plain SHA-256 is a sufficient
// storage hash: there is nothing to brute-force.
import { hash, randomInt } from 'node:crypto';
import type { KeyKind } from '@presence/protocol';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export const newKeyId = () => `key_${randomBase62(16)}`;
export const newSecret = (kind: KeyKind) => `prs_${kind}_${randomBase62(40)}`;

const SECRET_SHAPE = /^prs_(live|test)_[0-9A-Za-z]{32,128}$/;
export const looksLikeSecret = (s: string) => SECRET_SHAPE.test(s);
export const kindOfSecret = (s: string): KeyKind => (s.startsWith('prs_test_') ? 'test' : 'live');

// One-shot: every authenticated request hashes its key, and a Hash object per call cost
// several times the digest itself.
export const hashSecret = (secret: string) => hash('sha256', secret, 'hex');
