// Intents: an append-only log per account (data/intents/<account>.jsonl). Each version of a
// record is appended and the newest line for an id wins on load, so a transition is one line
// and its cost does not grow with history. Records stay in memory (small, and bounded by what
// an account does), indexed by Idempotency-Key and confirm id, with today's spend kept as a
// running sum, so the lookups every intent makes do not grow with the account's history
// either. Transitions are compare-and-set on the committed state, so they hold the account's
// intents lock until their line is durable.

import { PresenceError } from '../../errors/presence-error';
import { IntentRecord } from '../documents';
import { createIntentIndex } from '../intent-index';
import type { StorePort } from '../store-port';
import { deepFreeze } from './documents-engine';
import { accountLogs, type StoreContext } from './per-account';

type IntentMethods =
  | 'createIntent'
  | 'getIntent'
  | 'findIntentByConfirmId'
  | 'findIntentByIdempotencyKey'
  | 'transitionIntent'
  | 'listIntents'
  | 'spentSince'
  | 'intentsInStates';
export type IntentsFamily = Pick<StorePort, IntentMethods> & { close(): Promise<void> };

/** `accountIds` lists every account, for the sweeps across them. */
export function openIntents(ctx: StoreContext, accountIds: () => string[]): IntentsFamily {
  const { lock } = ctx;
  const intentLog = accountLogs(ctx, 'intents', IntentRecord, async (file) => {
    const log = { file, index: createIntentIndex() };
    for (const r of await file.readAll()) log.index.put(deepFreeze(r));
    return log;
  });
  const listIntents: StorePort['listIntents'] = async (accountId, filter = {}) => (await intentLog(accountId)).index.list(filter.states);

  return {
    close: intentLog.close,
    async createIntent(intent) {
      const log = await intentLog(intent.account_id);
      await lock(`intents:${intent.account_id}`, async () => {
        if (log.index.byId.has(intent.id)) throw new PresenceError('conflict', `intent ${intent.id} exists`);
        // See StorePort.createIntent: an `executing` record's line is synced by its next one.
        await log.file.append([intent], undefined, { sync: intent.state !== 'executing' });
        log.index.put(deepFreeze(structuredClone(intent)));
      });
    },
    async getIntent(accountId, id) {
      return (await intentLog(accountId)).index.byId.get(id) ?? null;
    },
    async findIntentByConfirmId(accountId, confirmId) {
      return (await intentLog(accountId)).index.byConfirmId(confirmId);
    },
    async findIntentByIdempotencyKey(accountId, key) {
      return (await intentLog(accountId)).index.byIdempotencyKey(key);
    },
    async transitionIntent(accountId, id, from, to, patch = {}) {
      const log = await intentLog(accountId);
      return lock(`intents:${accountId}`, async () => {
        const current = log.index.byId.get(id);
        if (!current || !from.includes(current.state)) return null;
        const next = deepFreeze({ ...structuredClone(current), ...structuredClone(patch), state: to });
        await log.file.append([next]);
        log.index.put(next);
        return next;
      });
    },
    listIntents,
    async spentSince(accountId, since) {
      return (await intentLog(accountId)).index.spentSince(since);
    },
    async intentsInStates(states) {
      const out: IntentRecord[] = [];
      for (const id of accountIds()) out.push(...(await listIntents(id, { states })));
      return out;
    },
  };
}
