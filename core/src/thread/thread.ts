// The conversation thread: turns (question and answer stored as one entry) and the
// presence's unprompted speech, which is also announced as a `message` event. A thread is
// something a client grows, so it has a cap: an account keeps its newest entries, pruned back
// to `threadRetention.keep` at every `every`-th append (the thread holds at most their sum).
import type { Scope } from '@presence/protocol';
import type { Clock } from '../clock/clock';
import { iso } from '../clock/clock';
import type { EventsLog } from '../events/events-log';
import { accountCaller, type Caller } from '../keys/caller';
import type { NewThreadEntry, ThreadEntry } from '../store/documents';
import type { StoreFor } from '../store/overlay-store';
import type { StorePort } from '../store/store-port';
import { redactEntry } from './scope-redaction';

export type ThreadMessage = {
  id: string;
  role: 'user' | 'presence';
  text: string;
  at: string;
  cause?: string;
  used?: { tool: string; args: Record<string, unknown> }[];
  acted?: boolean;
  tx?: string | null;
  confirm_id?: string | null;
};

/** Flattens entries into messages; a turn yields its user line then its reply. */
export function toMessages(entries: readonly ThreadEntry[]): ThreadMessage[] {
  const out: ThreadMessage[] = [];
  for (const e of entries) {
    if (e.kind === 'turn') {
      out.push({ id: `${e.id}.u`, role: 'user', text: e.user, at: iso(e.at) });
      out.push({
        id: `${e.id}.p`,
        role: 'presence',
        text: e.reply,
        at: iso(e.at),
        used: e.used,
        acted: e.acted,
        tx: e.tx,
        confirm_id: e.confirm_id,
      });
    } else out.push({ id: `${e.id}.p`, role: 'presence', text: e.text, at: iso(e.at), cause: e.cause });
  }
  return out;
}

export type Thread = ReturnType<typeof createThread>;

/** The last thread entry and event ids before something was said (0 when none). */
export type SpeechMarks = { thread_after: number; event_after: number };
const SCAN_PAGE = 200;
/** What an account's thread keeps: its newest `keep` entries (a page back ends there), pruned back to that every `every` appends (one rewrite on lowdb, one DELETE on PostgreSQL). */
export type ThreadRetention = { keep: number; every: number };
export const threadRetention: ThreadRetention = { keep: 10_000, every: 1_000 };

/** `store` is the live store (standing intents speak there); `storeFor` picks the caller's. */
export function createThread({
  store,
  storeFor,
  events,
  clock,
  onError = () => undefined,
  retention = threadRetention,
}: {
  store: StorePort;
  storeFor: StoreFor;
  events: EventsLog;
  clock: Clock;
  /** A prune that failed (not awaited: the next prune tries again). */
  onError?: (e: unknown) => void;
  retention?: ThreadRetention;
}) {
  /** Appends, and now and then prunes back to what is kept; retention is never the writer's wait. */
  async function appendTo(to: Pick<StorePort, 'appendThread' | 'pruneThread'>, accountId: string, entry: NewThreadEntry) {
    const stored = await to.appendThread(accountId, entry);
    if (stored.id % retention.every === 0) void to.pruneThread(accountId, retention.keep).catch(onError);
    return stored;
  }
  return {
    /** Keeps an entry in the caller's thread (a turn: the conversation's). */
    append: (caller: Caller, entry: NewThreadEntry) => appendTo(storeFor(caller.kind), caller.accountId, entry),
    /** The presence speaks unprompted: kept in the thread and sent as an event; `scopes`: what the words drew on. */
    async say(caller: Caller, text: string, cause: string, scopes: readonly Scope[]) {
      await appendTo(storeFor(caller.kind), caller.accountId, { kind: 'presence', at: clock.now(), text, cause, scopes: [...scopes] });
      await events.emit(caller, 'message', { text, cause, scopes: [...scopes] });
    },
    /** Where the thread and the live events log end now; see `sayOnce`. */
    async marks(accountId: string): Promise<SpeechMarks> {
      const [last] = await store.readThread(accountId, { limit: 1 });
      const { latest } = await store.eventBounds(accountId);
      return { thread_after: last?.id ?? 0, event_after: latest };
    },
    /**
     * Says it unless it was already said since `marks` were taken: the same words with the
     * same cause past those ids are this very message, spoken before a crash. The thread
     * entry and the event are each looked for, so a crash between them is completed too.
     */
    async sayOnce(accountId: string, text: string, cause: string, marks: SpeechMarks, scopes: readonly Scope[]) {
      const same = (e: { text?: unknown; cause?: unknown }) => e.text === text && e.cause === cause;
      let inThread = false;
      for (let before: number | undefined; !inThread; ) {
        const page = await store.readThread(accountId, { before, limit: SCAN_PAGE });
        inThread = page.some((e) => e.id > marks.thread_after && e.kind === 'presence' && same(e));
        const first = page[0];
        if (!first || first.id <= marks.thread_after + 1) break;
        before = first.id;
      }
      if (!inThread) await appendTo(store, accountId, { kind: 'presence', at: clock.now(), text, cause, scopes: [...scopes] });
      for (let after = marks.event_after; ; ) {
        const page = await store.eventsAfter(accountId, after, SCAN_PAGE);
        if (page.some((e) => e.type === 'message' && same(e.data))) return;
        const last = page.at(-1);
        if (!last || page.length < SCAN_PAGE) break;
        after = last.id;
      }
      await events.emit(accountCaller(accountId), 'message', { text, cause, scopes: [...scopes] });
    },
    /** A page of the thread as a key holding `held` may read it. */
    async page(caller: Caller, before: number | undefined, limit: number, held: readonly Scope[]) {
      const store = storeFor(caller.kind);
      const entries = (await store.readThread(caller.accountId, { before, limit })).map((e) => redactEntry(e, held));
      const first = entries[0];
      const older = first ? (await store.readThread(caller.accountId, { before: first.id, limit: 1 })).length > 0 : false;
      return { messages: toMessages(entries), next_before: older && first ? String(first.id) : null };
    },
    /** The recent entries, as a key holding `held` may read them (what a planner is given for its turn). */
    history: async (caller: Caller, turns: number, held: readonly Scope[]) =>
      (await storeFor(caller.kind).readThread(caller.accountId, { limit: turns })).map((e) => redactEntry(e, held)),
  };
}
