// The test keys' overlay (overlay-store.ts) of the families overlaid record by record:
// accounts, keys, wallets and standing intents. The overlay keeps the fields its writes changed
// (the whole record when it made one, a tombstone when it removed one); every other field, and
// every other record, reads live.
import { PresenceError } from '../errors/presence-error';
import type { AccountsPort } from './accounts-port';
import type { KeysPort } from './keys-port';
import type { Family, Records } from './overlay-accounts';
import { applied, copy, overlaid } from './overlay-changes';
import type { OverlayContext } from './overlay-context';
import type { StandingPort } from './standing-port';
import type { WalletsPort } from './wallets-port';

type Update<F extends Family, R> = (current: Records[F] | null) => { next: Records[F] | null; result: R };

/** An update of a record that may be gone: the updater's record (a copy, frozen) is both what is kept and the answer; gone answers null. */
const updating =
  <T>(update: (current: T) => T) =>
  (current: T | null) => {
    if (!current) return { next: null, result: null };
    const next = copy(update(current));
    return { next, result: next };
  };

export function overlayRecords(ctx: OverlayContext): AccountsPort & KeysPort & WalletsPort & StandingPort {
  const { live, updateRecord, changesOf, active } = ctx;
  const liveStanding = async (accountId: string, id: string) => (await live.listStanding(accountId)).find((r) => r.id === id) ?? null;
  // One record of each family, read-modify-written under its lock: the account it is under, its id, how it reads live.
  const keyRecord = <R>(accountId: string, id: string, update: Update<'keys', R>) =>
    updateRecord(accountId, 'keys', id, () => live.getKey(id), update);
  const accountRecord = <R>(id: string, update: Update<'accounts', R>) =>
    updateRecord(id, 'accounts', id, () => live.getAccount(id), update);
  const walletRecord = <R>(accountId: string, update: Update<'wallets', R>) =>
    updateRecord(accountId, 'wallets', accountId, () => live.getWallet(accountId), update);
  const standingRecord = <R>(accountId: string, id: string, update: Update<'standing', R>) =>
    updateRecord(accountId, 'standing', id, () => liveStanding(accountId, id), update);
  const keys: KeysPort = {
    async insertKey(key) {
      await keyRecord(key.account_id, key.id, () => ({ next: key, result: undefined }));
    },
    async getKey(id) {
      for (const o of active()) {
        const c = o.records.keys.get(id);
        if (c) return applied(await live.getKey(id), c);
      }
      return live.getKey(id);
    },
    async findKeyBySecretHash(hash) {
      const found = await live.findKeyBySecretHash(hash);
      const current = found && (await keys.getKey(found.id));
      if (current?.secrets.some((s) => s.hash === hash)) return current;
      for (const o of active()) {
        for (const [id, c] of o.records.keys) {
          const k = 'whole' in c ? c.whole : 'patch' in c && c.patch.secrets ? applied(await live.getKey(id), c) : null;
          if (k?.secrets.some((s) => s.hash === hash)) return k;
        }
      }
      return null;
    },
    async listKeys(accountId) {
      return overlaid(await live.listKeys(accountId), changesOf(accountId, 'keys'), (k) => k.id);
    },
    async updateKey(id, update) {
      const found = await keys.getKey(id);
      if (!found) return null;
      return keyRecord(found.account_id, id, updating(update));
    },
  };
  return {
    async createAccount(account) {
      await accountRecord(account.id, (current) => {
        if (current) throw new PresenceError('conflict', `account ${account.id} exists`);
        return { next: account, result: undefined };
      });
    },
    async getAccount(id) {
      return applied(await live.getAccount(id), changesOf(id, 'accounts')?.get(id));
    },
    async listAccounts() {
      const rows = await live.listAccounts();
      const out = rows.flatMap((a) => applied(a, changesOf(a.id, 'accounts')?.get(a.id)) ?? []);
      const known = new Set(rows.map((a) => a.id));
      for (const o of active()) for (const [id, c] of o.records.accounts) if (!known.has(id) && 'whole' in c) out.push(c.whole);
      return out;
    },
    updateAccount(id, update) {
      return accountRecord(id, updating(update));
    },
    ...keys,
    async getWallet(accountId) {
      return applied(await live.getWallet(accountId), changesOf(accountId, 'wallets')?.get(accountId));
    },
    createWallet(wallet) {
      return walletRecord(wallet.account_id, (current) =>
        current ? { next: current, result: current } : { next: wallet, result: copy(wallet) },
      );
    },
    async markWalletFunded(accountId) {
      await walletRecord(accountId, (current) => ({ next: current && { ...current, funded: true }, result: undefined }));
    },
    async putStanding(record) {
      await standingRecord(record.account_id, record.id, () => ({ next: record, result: undefined }));
    },
    async listStanding(accountId) {
      return overlaid(await live.listStanding(accountId), changesOf(accountId, 'standing'), (r) => r.id);
    },
    async dueStanding() {
      // A test key's standing intents never fire (standing-service.ts): nothing is due here.
      return [];
    },
    updateStanding(accountId, id, update) {
      return standingRecord(accountId, id, updating(update));
    },
  };
}
