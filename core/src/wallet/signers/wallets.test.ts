// A new wallet on the devnet is funded on first use; a faucet that fails is the chain being
// unavailable (a 503 to retry), and the wallet is funded at the next use, not left without funds.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../clock/clock';
import { PresenceError } from '../../errors/presence-error';
import { createKeystore } from '../../keystore/keystore';
import { createLowdbStore } from '../../store/lowdb/lowdb-store';
import { createWallets } from './wallets';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function open(fund: (address: string) => Promise<void>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'wallets-'));
  dirs.push(dir);
  const keystore = createKeystore(randomBytes(32));
  const store = await createLowdbStore({ dataDir: dir, fsync: false, keystore });
  return { store, wallets: createWallets({ store, keystore, clock: createManualClock(0), fund }) };
}

describe('wallets on the devnet', () => {
  it('a faucet that fails answers chain_unavailable, and the next use funds the same wallet', async () => {
    const funded: string[] = [];
    let fail = true;
    const { store, wallets } = await open(async (address) => {
      if (fail) throw new Error('Timed out while waiting for transaction with hash 0xabc to be confirmed.');
      funded.push(address);
    });
    const first = await wallets.address('acct_1').catch((e: unknown) => e);
    expect(first).toBeInstanceOf(PresenceError);
    expect((first as PresenceError).type).toBe('chain_unavailable');
    expect((await store.getWallet('acct_1'))?.funded).toBe(false);
    fail = false;
    const address = await wallets.address('acct_1');
    expect(funded).toEqual([address]);
    expect((await store.getWallet('acct_1'))?.funded).toBe(true);
    await store.close();
  });
});
