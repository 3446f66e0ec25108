// One turn of conversation: the user's message in, the presence's reply out. Turns of one
// account run one at a time in arrival order. The planner sees only the last turns and
// pinned memory within a budget; everything it does goes through the presence tools. The
// turn is stored (question and reply as one entry) only after it completed, so a failure
// mid-way leaves no half turn; the memory writes and standing intents it asked for are
// applied only after that (each is idempotent, so a retry of a turn cut short in between
// completes them). Test keys get answers but change nothing. A turn does only what its
// key's scopes allow: the planner sees pinned memory only with memory:read, and the keys a
// message mentions are touched (a memory write) only with memory:write.
import type { TokenList } from '../chain/token-list';
import type { Clock } from '../clock/clock';
import { createKeyedLock } from '../concurrency/keyed-lock';
import { PresenceError } from '../errors/presence-error';
import type { Principal } from '../keys/key-service';
import type { MemoryService } from '../memory/memory-service';
import type { MessageResult } from '../schemas/messages';
import type { StandingService } from '../standing/standing-service';
import type { ThreadEntry } from '../store/documents';
import type { StorePort } from '../store/store-port';
import type { WalletDomain } from '../wallet/wallet-domain';
import { mentionedKeys } from './mentions';
import type { Planner, PlannerContext } from './planner-port';
import { createPresenceTools, newTurnEffects, refuseTurn } from './presence-tools';
import type { Thread } from './thread';

export type TurnSink = {
  token(text: string): void;
  tool(name: string, args: Record<string, unknown>): void;
  needsConfirm(confirmId: string): void;
};

export const HISTORY_TURNS = 10;
/** How many recent thread entries a retried turn is looked for in. */
const REPLAY_LOOKBACK = 100;
/** A rough token budget for history (4 characters ≈ 1 token). */
export const HISTORY_BUDGET_CHARS = 8_000;

export type PlannerResolver = (model: string) => Planner;

export type Conversation = ReturnType<typeof createConversation>;

export function createConversation(deps: {
  store: StorePort;
  clock: Clock;
  memory: MemoryService;
  wallet: WalletDomain | null;
  standing: StandingService;
  thread: Thread;
  planners: PlannerResolver;
  tokenList: TokenList | null;
}) {
  const { store, clock, memory, wallet, standing, thread } = deps;
  const turns = createKeyedLock();

  async function context(p: Principal, text: string, allowAct: boolean): Promise<{ ctx: PlannerContext; model: string }> {
    const account = await store.getAccount(p.accountId);
    if (!account) throw new PresenceError('not_found', 'this key’s account no longer exists');
    const entries = (await thread.history(p.accountId, HISTORY_TURNS)).flatMap((e) =>
      e.kind === 'turn' ? [{ user: e.user, reply: e.reply }] : [],
    );
    // Newest turns first until the budget is spent, then back in order.
    const history: { user: string; reply: string }[] = [];
    let budget = HISTORY_BUDGET_CHARS;
    for (const t of entries.reverse()) {
      budget -= t.user.length + t.reply.length;
      if (budget < 0) break;
      history.unshift(t);
    }
    const mem = p.scopes.includes('memory:read') ? await memory.list(p.accountId) : { pinned: [] };
    return {
      model: account.presence.model,
      ctx: {
        presenceName: account.presence.name,
        text,
        history,
        pinned: mem.pinned.map((e) => ({ key: e.key, note: e.note })),
        touched: p.scopes.includes('memory:write') ? mentionedKeys(text, deps.tokenList) : [],
        scopes: p.scopes,
        allowAct,
        preferences: account.presence.preferences,
      },
    };
  }

  async function turn(
    p: Principal,
    input: { text: string; allowAct: boolean; idempotencyKey: string | null },
    sink: TurnSink,
  ): Promise<MessageResult> {
    // The server stores a turn's answer under its Idempotency-Key after the turn is written;
    // a crash in between leaves a retry that finds no answer. The thread knows the turn.
    if (p.kind === 'live' && input.idempotencyKey) {
      const prior = await storedTurn(p.accountId, input.idempotencyKey);
      if (prior) return replay(prior, sink);
    }
    const { ctx, model } = await context(p, input.text, input.allowAct);
    const effects = newTurnEffects(ctx.touched);
    const tools = createPresenceTools({
      principal: p,
      allowAct: input.allowAct,
      wallet,
      memory,
      standing,
      effects,
      on: { tool: sink.tool, needsConfirm: sink.needsConfirm },
      idempotencyKey: input.idempotencyKey,
      turnContext: { turn_text: input.text.slice(0, 500) },
    });
    const reply = await deps.planners(model).run(ctx, { tools, token: sink.token, refused: () => refuseTurn(effects) });
    const touched = [...effects.touched];
    const result: MessageResult = {
      reply,
      used: effects.used,
      memory: { touched },
      acted: effects.acted,
      ...(effects.tx ? { tx: effects.tx } : {}),
      ...(effects.confirm_id ? { confirm_id: effects.confirm_id } : {}),
    };
    if (p.kind === 'live') {
      await store.appendThread(p.accountId, {
        kind: 'turn',
        at: clock.now(),
        user: input.text,
        reply,
        used: effects.used,
        touched,
        acted: effects.acted,
        tx: effects.tx,
        confirm_id: effects.confirm_id,
        idempotency_key: input.idempotencyKey,
      });
      for (const apply of effects.deferred) await apply();
      await memory.touch(p.accountId, p.kind, touched);
    }
    return result;
  }

  /** Retries come soon after the original: the recent end of the thread is enough. */
  async function storedTurn(accountId: string, key: string) {
    const recent = await store.readThread(accountId, { limit: REPLAY_LOOKBACK });
    return recent.find((e): e is Extract<ThreadEntry, { kind: 'turn' }> => e.kind === 'turn' && e.idempotency_key === key) ?? null;
  }

  function replay(e: Extract<ThreadEntry, { kind: 'turn' }>, sink: TurnSink): MessageResult {
    for (const u of e.used) sink.tool(u.tool, u.args);
    if (e.confirm_id) sink.needsConfirm(e.confirm_id);
    sink.token(e.reply);
    return {
      reply: e.reply,
      used: e.used,
      memory: { touched: e.touched },
      acted: e.acted,
      ...(e.tx ? { tx: e.tx } : {}),
      ...(e.confirm_id ? { confirm_id: e.confirm_id } : {}),
    };
  }

  return {
    send: (p: Principal, input: { text: string; allowAct: boolean; idempotencyKey: string | null }, sink: TurnSink) =>
      turns(`${p.kind}:${p.accountId}`, () => turn(p, input, sink)),
    /** Reads are real for test keys too: they see the live thread, they just never add to it. */
    list: (p: Principal, before: number | undefined, limit: number) => thread.page(p.accountId, before, limit),
  };
}
