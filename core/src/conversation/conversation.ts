// One turn of conversation: the user's message in, the presence's reply out. Turns of one
// account run one at a time in arrival order. The planner sees only the last turns (cut to
// the history budget) and pinned memory; everything it does goes through the presence tools. The
// turn is stored (question and reply as one entry) only after it completed, so a failure
// mid-way leaves no half turn; the memory writes and standing intents it asked for are
// applied only after that (each is idempotent, so a retry of a turn cut short in between
// completes them). A test key's turn runs the same over its own store (the overlay). A turn
// does only what its key's scopes allow: the planner sees pinned memory only with
// memory:read, and the keys a message mentions are touched (a memory write) only with
// memory:write.
//
// A turn with an Idempotency-Key is answered once: `begin` claims the key and decides whether
// the turn runs or is a replay, and a replay (of the stored answer, or of the turn the thread
// kept when the answer was not stored) re-emits the turn's tool, needs_confirm and token
// events before the answer. Transports only carry what this gives them, as JSON or a stream.
import type { MessageResult, Scope } from '@presence/protocol';
import type { TokenList } from '../chain/token-list';
import type { Clock } from '../clock/clock';
import { createKeyedLock } from '../concurrency/keyed-lock';
import { PresenceError, type Problem } from '../errors/presence-error';
import { fingerprintRequest } from '../idempotency/fingerprint';
import type { Idempotency, IdempotencyClaim, StoredAnswer } from '../idempotency/idempotency';
import type { WalletDomain } from '../intents/wallet-domain';
import type { Principal } from '../keys/key-service';
import { requireScope } from '../keys/scopes';
import type { MemoryService } from '../memory/memory-service';
import type { StandingService } from '../standing/standing-service';
import type { ThreadEntry } from '../store/documents';
import type { StoreFor } from '../store/overlay-store';
import { lackedScopes } from '../thread/scope-redaction';
import type { Thread } from '../thread/thread';
import { drawnScopes } from './drawn-scopes';
import { boundHistory, HISTORY_LOOKBACK_ENTRIES } from './history-budget';
import { chunkReply } from './local-planner';
import { mentionedKeys } from './mentions';
import type { Planner, PlannerContext } from './planner-port';
import { createPresenceTools, newTurnEffects, refuseTurn } from './presence-tools';

export type TurnSink = {
  token(text: string): void;
  tool(name: string, args: Record<string, unknown>): void;
  needsConfirm(confirmId: string): void;
};

export type TurnInput = { text: string; allowAct: boolean; idempotencyKey: string | null };

/** A turn's answer: the bytes stored under its Idempotency-Key (or that would be), and what they say. */
export type TurnAnswer = StoredAnswer & ({ result: MessageResult } | { problem: Problem });

/** A turn once its Idempotency-Key is claimed: a replay, or a turn to run. */
export type PreparedTurn = {
  /** The answer was given before: `run` re-emits it (marked Idempotent-Replayed by transports). */
  replayed: boolean;
  /** Emits the turn's events into `sink` and answers; a turn that fails throws (a 4xx is stored first). */
  run(sink: TurnSink): Promise<TurnAnswer>;
};

/** How many recent thread entries a retried turn is looked for in. */
const REPLAY_LOOKBACK = 100;
const JSON_TYPE = 'application/json; charset=utf-8';

export type PlannerResolver = (model: string) => Planner;

export type Conversation = ReturnType<typeof createConversation>;

export function createConversation(deps: {
  storeFor: StoreFor;
  clock: Clock;
  memory: MemoryService;
  wallet: WalletDomain | null;
  standing: StandingService;
  thread: Thread;
  planners: PlannerResolver;
  tokenList: TokenList | null;
  idempotency: Idempotency;
}) {
  const { storeFor, clock, memory, wallet, standing, thread, idempotency } = deps;
  const turns = createKeyedLock();

  async function context(
    p: Principal,
    text: string,
    allowAct: boolean,
  ): Promise<{ ctx: PlannerContext; model: string; historyScopes: Scope[] }> {
    const account = await storeFor(p.kind).getAccount(p.accountId);
    if (!account) throw new PresenceError('not_found', 'this key’s account no longer exists');
    const history = boundHistory(
      (await thread.history(p, HISTORY_LOOKBACK_ENTRIES, p.scopes)).flatMap((e) =>
        e.kind === 'turn' ? [{ user: e.user, reply: e.reply, scopes: e.scopes ?? [] }] : [],
      ),
    );
    const mem = p.scopes.includes('memory:read') ? await memory.list(p) : { pinned: [] };
    return {
      model: account.presence.model,
      // What the turns shown as they were drew on (one naming a scope this key lacks was shown redacted).
      historyScopes: [...new Set(history.flatMap((t) => (lackedScopes(t.scopes, p.scopes).length === 0 ? t.scopes : [])))] as Scope[],
      ctx: {
        presenceName: account.presence.name,
        text,
        history: history.map(({ user, reply }) => ({ user, reply })),
        pinned: mem.pinned.map((e) => ({ key: e.key, note: e.note })),
        touched: p.scopes.includes('memory:write') ? mentionedKeys(text, deps.tokenList) : [],
        scopes: p.scopes,
        allowAct,
        preferences: account.presence.preferences,
      },
    };
  }

  async function turn(p: Principal, input: TurnInput, sink: TurnSink): Promise<MessageResult> {
    // A turn's answer is stored under its Idempotency-Key after the turn is written; a crash
    // in between leaves a retry that finds no answer. The thread knows the turn.
    if (input.idempotencyKey) {
      const prior = await storedTurn(p, input.idempotencyKey);
      if (prior) return replay(resultOf(prior), sink);
    }
    const { ctx, model, historyScopes } = await context(p, input.text, input.allowAct);
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
      tx: effects.tx || undefined,
      confirm_id: effects.confirm_id || undefined,
    };
    await thread.append(p, {
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
      scopes: drawnScopes(effects.used, ctx.pinned.length > 0, historyScopes),
    });
    for (const apply of effects.deferred) await apply();
    await memory.touch(p, touched);
    return result;
  }

  /** Retries come soon after the original: the recent end of the thread is enough. */
  async function storedTurn(p: Principal, key: string) {
    const recent = await storeFor(p.kind).readThread(p.accountId, { limit: REPLAY_LOOKBACK });
    return recent.find((e): e is Extract<ThreadEntry, { kind: 'turn' }> => e.kind === 'turn' && e.idempotency_key === key) ?? null;
  }

  const send = (p: Principal, input: TurnInput, sink: TurnSink) => turns(`${p.kind}:${p.accountId}`, () => turn(p, input, sink));

  /** Runs the turn and stores its answer under the claimed key: answers and 4xx problems are final, a 5xx is not. */
  async function runAndRecord(p: Principal, input: TurnInput, sink: TurnSink, claim: IdempotencyClaim | null): Promise<TurnAnswer> {
    const proceed = claim?.kind === 'proceed' ? claim : null;
    try {
      const result = await send(p, input, sink);
      const answer: TurnAnswer = { status: 200, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(result), result };
      await proceed?.complete({ status: answer.status, headers: answer.headers, body: answer.body });
      return answer;
    } catch (e) {
      if (proceed && e instanceof PresenceError && e.status < 500) {
        const problem = e.toProblem();
        await proceed.complete({
          status: problem.status,
          headers: { 'content-type': 'application/problem+json' },
          body: JSON.stringify(problem),
        });
      } else proceed?.abandon();
      throw e;
    }
  }

  /**
   * Claims the turn's Idempotency-Key and decides: a replay of the answer stored under it, or
   * a turn to run. The key covers the text and allow_act, not how the answer is carried: one
   * stored answer serves a retry whether it asks for JSON or a stream.
   */
  async function begin(p: Principal, input: TurnInput): Promise<PreparedTurn> {
    if (input.allowAct) requireScope(p, 'wallet:act');
    let claim: IdempotencyClaim | null = null;
    if (input.idempotencyKey !== null) {
      const fingerprint = fingerprintRequest('POST', '/v1/messages', { text: input.text, allow_act: input.allowAct });
      claim = await idempotency.claim(p, input.idempotencyKey, fingerprint);
    }
    if (claim?.kind === 'replay') {
      const answer = answerOf(claim.answer);
      return {
        replayed: true,
        run: async (sink) => {
          if ('result' in answer) replay(answer.result, sink);
          return answer;
        },
      };
    }
    return { replayed: false, run: (sink) => runAndRecord(p, input, sink, claim) };
  }

  return {
    begin,
    /** One turn under the account's turn lock (no Idempotency-Key claim: see `begin`). */
    send,
    /** A test key sees the live thread with its own turns merged in. */
    list: (p: Principal, before: number | undefined, limit: number) => thread.page(p, before, limit, p.scopes),
  };
}

/** A stored turn as the answer it gave. */
function resultOf(e: Extract<ThreadEntry, { kind: 'turn' }>): MessageResult {
  return {
    reply: e.reply,
    used: e.used,
    memory: { touched: e.touched },
    acted: e.acted,
    tx: e.tx || undefined,
    confirm_id: e.confirm_id || undefined,
  };
}

/** A stored answer read back: a turn's result (200) or the problem it ended with. */
function answerOf(stored: StoredAnswer): TurnAnswer {
  const data = JSON.parse(stored.body);
  return stored.status === 200 ? { ...stored, result: data as MessageResult } : { ...stored, problem: data as Problem };
}

/** A turn answered before, told again as it happened: its tool calls, any hold, then its reply in pieces. */
function replay(result: MessageResult, sink: TurnSink): MessageResult {
  for (const u of result.used) sink.tool(u.tool, u.args);
  if (result.confirm_id) sink.needsConfirm(result.confirm_id);
  for (const text of chunkReply(result.reply)) sink.token(text);
  return result;
}
