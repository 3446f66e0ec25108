// Accounts: each holds exactly one presence. Creating one also issues its first admin key.
import type { Clock } from '../clock/clock';
import { iso } from '../clock/clock';
import { PresenceError } from '../errors/presence-error';
import type { KeyService } from '../keys/key-service';
import { scopes } from '../schemas/common';
import type { KeySecret } from '../schemas/keys';
import type { StorePort } from '../store/store-port';

export const ACCOUNT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export function createAccountService({ store, clock, keys }: { store: StorePort; clock: Clock; keys: KeyService }) {
  async function create(name: string): Promise<{ account: string; admin: KeySecret }> {
    if (!ACCOUNT_NAME.test(name)) {
      throw new PresenceError('invalid_request', 'account names are 1-64 lowercase letters, digits, "-" or "_"');
    }
    if (await store.getAccount(name)) throw new PresenceError('conflict', `account ${name} already exists`);
    await store.createAccount({
      id: name,
      name,
      created_at: iso(clock.now()),
      presence: { name: 'Presence', model: 'local', preferences: {} },
      policy: null,
    });
    const admin = await keys.create(name, { kind: 'live', name: 'admin', scopes });
    return { account: name, admin };
  }

  return {
    create,
    /** First start: account `default` with a live and a test key, each holding every scope. */
    async bootstrap(): Promise<{ account: string; live: string; test: string } | null> {
      if ((await store.listAccounts()).length > 0) return null;
      const { admin } = await create('default');
      const test = await keys.create('default', { kind: 'test', name: 'test', scopes });
      return { account: 'default', live: admin.secret, test: test.secret };
    },
  };
}
