// Intents: an append-only log per account (data/intents/<account>.jsonl). Each version of a
// record is appended and the newest line for an id wins on load, so a transition is one line
// and its cost does not grow with history. Records stay in memory (small, and bounded by what
// an account does), indexed by Idempotency-Key and confirm id, with today's spend kept as a
// running sum, so the lookups every intent makes do not grow with the account's history
// either. Transitions are compare-and-set on the committed state, so they hold the account's
// intents lock until their line is durable.

import { PresenceError } from '../../errors/presence-error';
import { IntentRecord, type IntentState } from '../documents';
import { createIntentIndex } from '../intent-index';
import type { IntentsPort } from '../intents-port';
import type { StorePort } from '../store-port';
import type { Agenda, AgendaTopic } from './agenda';
import { deepFreeze } from './documents-engine';
import { accountLogs, type StoreContext } from './per-account';

export type IntentsFamily = IntentsPort & { close(): Promise<void> };

/** The agenda topic that indexes the accounts with intents in a state, if any. */
const topicOf = (state: IntentState): AgendaTopic | null =>
  state === 'held' ? 'hold' : state === 'executing' || state === 'signed' ? 'inflight' : null;
const statesOf: Record<'hold' | 'inflight', readonly IntentState[]> = { hold: ['held'], inflight: ['executing', 'signed'] };

/**
 * Held and in-flight intents are indexed by the agenda (holds by their earliest expiry), so
 * the sweeps read only the accounts that have some; `accountIds` lists every account, for
 * the rare question about other states.
 */
export function openIntents(ctx: StoreContext, agenda: Agenda, accountIds: () => string[]): IntentsFamily {
  const { lock } = ctx;
  const intentLog = accountLogs(ctx, 'intents', IntentRecord, async (file) => {
    const log = { file, index: createIntentIndex() };
    for (const r of await file.readAll()) log.index.put(deepFreeze(r));
    return log;
  });
  const listIntents: StorePort['listIntents'] = (accountId, filter = {}) => intentLog.use(accountId, (log) => log.index.list(filter));
  /** Tells the agenda of the work a record in this state makes, before the record is written. */
  const indexed = (r: IntentRecord) => {
    const topic = topicOf(r.state);
    if (topic === 'hold') return agenda.lower('hold', r.account_id, r.expires_at ?? 0);
    if (topic === 'inflight') return agenda.lower('inflight', r.account_id, 0);
    return undefined;
  };
  /** The account's intents in the topic's states; an account with none leaves the topic. */
  const inTopic = async (topic: 'hold' | 'inflight', accountId: string) => {
    const found = await listIntents(accountId, { states: statesOf[topic] });
    if (found.length === 0) await agenda.set(topic, accountId, null);
    return found;
  };

  return {
    close: intentLog.close,
    createIntent: (intent) =>
      intentLog.use(intent.account_id, (log) =>
        lock(`intents:${intent.account_id}`, async () => {
          if (log.index.byId.has(intent.id)) throw new PresenceError('conflict', `intent ${intent.id} exists`);
          await indexed(intent);
          // See StorePort.createIntent: an `executing` record's line is synced by its next one.
          await log.file.append([intent], undefined, { sync: intent.state !== 'executing' });
          log.index.put(deepFreeze(structuredClone(intent)));
        }),
      ),
    async getIntent(accountId, id) {
      return intentLog.use(accountId, (log) => log.index.byId.get(id) ?? null);
    },
    async findIntentByConfirmId(accountId, confirmId) {
      return intentLog.use(accountId, (log) => log.index.byConfirmId(confirmId));
    },
    async findIntentByIdempotencyKey(accountId, key) {
      return intentLog.use(accountId, (log) => log.index.byIdempotencyKey(key));
    },
    transitionIntent: (accountId, id, from, to, patch = {}) =>
      intentLog.use(accountId, (log) =>
        lock(`intents:${accountId}`, async () => {
          const current = log.index.byId.get(id);
          if (!current || !from.includes(current.state)) return null;
          const next = deepFreeze({ ...structuredClone(current), ...structuredClone(patch), state: to });
          await indexed(next);
          await log.file.append([next]);
          log.index.put(next);
          return next;
        }),
      ),
    listIntents,
    heldCount: (accountId) => intentLog.use(accountId, (log) => log.index.heldCount()),
    async spentSince(accountId, since) {
      return intentLog.use(accountId, (log) => log.index.spentSince(since));
    },
    async intentsInStates(states) {
      const topics = new Set(states.map(topicOf));
      if (topics.has(null)) {
        // Not indexed (terminal states): every account is read. No periodic path asks this.
        const out: IntentRecord[] = [];
        for (const id of accountIds()) out.push(...(await listIntents(id, { states })));
        return out;
      }
      const out: IntentRecord[] = [];
      for (const topic of topics as Set<'hold' | 'inflight'>) {
        for (const id of agenda.accounts(topic)) out.push(...(await inTopic(topic, id)).filter((r) => states.includes(r.state)));
      }
      return out;
    },
    async dueHolds(now) {
      const out: IntentRecord[] = [];
      for (const id of agenda.due('hold', now)) {
        const held = await inTopic('hold', id);
        const due = held.filter((r) => (r.expires_at ?? 0) <= now);
        out.push(...due);
        // Nothing due after all (answered, or made later): the entry moves to the next expiry.
        if (due.length === 0 && held.length > 0) await agenda.set('hold', id, Math.min(...held.map((r) => r.expires_at ?? 0)));
      }
      return out;
    },
  };
}
