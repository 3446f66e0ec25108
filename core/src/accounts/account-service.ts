// Accounts: each holds exactly one presence. Creating one also issues its first admin key.
import type { KeySecret } from '@presence/protocol';
import { scopes } from '@presence/protocol';
import type { Clock } from '../clock/clock';
import { iso } from '../clock/clock';
import { PresenceError } from '../errors/presence-error';
import { newSecret } from '../keys/key-secret';
import type { KeyService } from '../keys/key-service';
import type { StorePort } from '../store/store-port';

export const ACCOUNT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The first start's keys, as saved for scripts (bootstrap-keys.json). */
export type BootstrapKeys = { account: string; live: string; test: string };

const BOOTSTRAP_ACCOUNT = 'default';

export function createAccountService({ store, clock, keys }: { store: StorePort; clock: Clock; keys: KeyService }) {
  const insertAccount = (name: string) =>
    store.createAccount({
      id: name,
      name,
      created_at: iso(clock.now()),
      presence: { name: 'Presence', model: 'local', preferences: {} },
      policy: null,
    });

  async function create(name: string): Promise<{ account: string; admin: KeySecret }> {
    if (!ACCOUNT_NAME.test(name)) {
      throw new PresenceError('invalid_request', 'account names are 1-64 lowercase letters, digits, "-" or "_"');
    }
    if (await store.getAccount(name)) throw new PresenceError('conflict', `account ${name} already exists`);
    await insertAccount(name);
    const admin = await keys.create(name, { kind: 'live', name: 'admin', scopes });
    return { account: name, admin };
  }

  return {
    create,
    /**
     * Account `default` with a live and a test key, each holding every scope — whenever
     * `default` does not exist yet, even if other accounts do (`accounts create` may run
     * before the first start).
     *
     * Crash-safe: the secrets are generated and handed to `save`, which must make them
     * durable, before anything is stored; a start that finds saved keys not (all) stored yet
     * finishes storing them. So a crash at any point leaves either nothing or a saved file
     * whose keys the next start makes work. Without a saved file, a `default` account that
     * has no key (a crash right after creating it, before this design) gets fresh ones.
     *
     * Returns the keys when this start created or completed them (to be shown once), else null.
     */
    async bootstrap({
      saved,
      save,
    }: {
      saved: BootstrapKeys | null;
      save: (keys: BootstrapKeys) => Promise<void>;
    }): Promise<BootstrapKeys | null> {
      const account = BOOTSTRAP_ACCOUNT;
      let pending = saved?.account === account ? saved : null;
      if (pending) {
        const stored = (await keys.isStored(pending.live)) && (await keys.isStored(pending.test));
        if (stored && (await store.getAccount(account))) return null;
      } else {
        if ((await store.getAccount(account)) && (await store.listKeys(account)).length > 0) return null;
        pending = { account, live: newSecret('live'), test: newSecret('test') };
        await save(pending);
      }
      if (!(await store.getAccount(account))) await insertAccount(account);
      if (!(await keys.isStored(pending.live))) await keys.create(account, { kind: 'live', name: 'admin', scopes }, pending.live);
      if (!(await keys.isStored(pending.test))) await keys.create(account, { kind: 'test', name: 'test', scopes }, pending.test);
      return pending;
    },
  };
}
