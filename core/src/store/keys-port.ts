// The API keys family of the store port (store-port.ts): found by id or by a secret's hash.
import type { KeyRecord } from './documents';

export interface KeysPort {
  insertKey(key: KeyRecord): Promise<void>;
  getKey(id: string): Promise<KeyRecord | null>;
  findKeyBySecretHash(hash: string): Promise<KeyRecord | null>;
  listKeys(accountId: string): Promise<KeyRecord[]>;
  updateKey(id: string, update: (key: KeyRecord) => KeyRecord): Promise<KeyRecord | null>;
}
