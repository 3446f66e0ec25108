// The first start's bootstrap: `default` is created whenever it is missing (other accounts or
// not), and a crash at any step never loses keys: they are saved before they are stored, and
// the next start finishes storing saved keys.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../clock/clock';
import { createKeyService } from '../keys/key-service';
import { createLowdbStore } from '../store/lowdb/lowdb-store';
import type { StorePort } from '../store/store-port';
import { type BootstrapKeys, createAccountService } from './account-service';

describe('bootstrap', () => {
  let dir: string;
  let store: StorePort;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'accounts-'));
    store = await createLowdbStore({ dataDir: dir });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const services = (s: StorePort) => {
    const clock = createManualClock(0);
    const keys = createKeyService({ store: s, clock });
    return { keys, accounts: createAccountService({ store: s, clock, keys }) };
  };
  /** A bootstrap-keys.json stand-in. */
  const file = () => {
    const f = {
      saved: null as BootstrapKeys | null,
      save: async (k: BootstrapKeys) => {
        f.saved = k;
      },
    };
    return f;
  };
  const works = async (keys: ReturnType<typeof services>['keys'], secret: string) => (await keys.authenticate(secret)).accountId;

  it('creates default with a live and a test key, saved before use; the next start does nothing', async () => {
    const { keys, accounts } = services(store);
    const f = file();
    const made = await accounts.bootstrap(f);
    expect(made).toEqual(f.saved);
    expect([await works(keys, made!.live), await works(keys, made!.test)]).toEqual(['default', 'default']);
    expect(await accounts.bootstrap(f)).toBeNull();
    expect(await store.listKeys('default')).toHaveLength(2);
  });

  it('creates default even when another account was created first', async () => {
    const { keys, accounts } = services(store);
    await accounts.create('acme');
    const made = await accounts.bootstrap(file());
    expect(made?.account).toBe('default');
    expect(await works(keys, made!.live)).toBe('default');
  });

  it('a crash after saving, at any step of storing, is finished by the next start with the saved keys', async () => {
    // Crash points: before the account, before the live key, before the test key.
    for (const failAt of ['createAccount', 'insertKey#1', 'insertKey#2']) {
      const d = mkdtempSync(path.join(tmpdir(), 'accounts-crash-'));
      const s = await createLowdbStore({ dataDir: d });
      try {
        let inserts = 0;
        const crashing = new Proxy(s, {
          get(target, prop, receiver) {
            const v = Reflect.get(target, prop, receiver);
            if (prop === 'createAccount' && failAt === 'createAccount') return async () => Promise.reject(new Error('crash'));
            if (prop === 'insertKey')
              return async (...args: Parameters<StorePort['insertKey']>) => {
                inserts++;
                if (failAt === `insertKey#${inserts}`) throw new Error('crash');
                return target.insertKey(...args);
              };
            return typeof v === 'function' ? v.bind(target) : v;
          },
        });
        const f = file();
        await expect(services(crashing).accounts.bootstrap(f)).rejects.toThrow('crash');
        const saved = f.saved;
        expect(saved, failAt).not.toBeNull();
        const { keys, accounts } = services(s); // the next start
        expect(await accounts.bootstrap(f), failAt).toEqual(saved);
        expect([await works(keys, saved!.live), await works(keys, saved!.test)]).toEqual(['default', 'default']);
        expect(await s.listKeys('default')).toHaveLength(2);
        expect(await accounts.bootstrap(f)).toBeNull();
      } finally {
        await s.close();
        rmSync(d, { recursive: true, force: true });
      }
    }
  });

  it('stores nothing when the keys cannot be saved', async () => {
    const { accounts } = services(store);
    await expect(accounts.bootstrap({ saved: null, save: async () => Promise.reject(new Error('disk full')) })).rejects.toThrow(
      'disk full',
    );
    expect(await store.getAccount('default')).toBeNull();
  });

  it('without a saved file, a default account with no key gets fresh keys; one with keys is left alone', async () => {
    const { keys, accounts } = services(store);
    await store.createAccount({
      id: 'default',
      name: 'default',
      created_at: new Date(0).toISOString(),
      presence: { name: 'Presence', model: 'local', preferences: {} },
      policy: null,
    });
    const made = await accounts.bootstrap(file());
    expect(await works(keys, made!.live)).toBe('default');
    expect(await accounts.bootstrap(file())).toBeNull(); // the file was deleted; the keys stand
  });
});
