// The presence's tools: everything a planner may call during a turn, declared with zod so
// model routes get typed tool schemas. Withdraw and policy changes are deliberately absent.
// Every call first passes the scope gate of tool-scopes.ts (the key's scopes, and allow_act
// for acting): a call the turn may not make is not run, not traced and not announced — it
// answers a `scope` (or, lacking allow_act, `invalid_request`) problem naming what is
// missing. Planners are offered only the tools that pass; this gate is the second line. A
// message cannot talk the presence into more than its key and policy allow. Every call that
// runs is traced in `used`.
//
// A turn may run again: a client retries with the same Idempotency-Key after a 5xx, and a
// model re-run may call its tools in another order. So every effect is keyed by the turn's
// key plus the call's canonical content (tool name, normalized arguments, and which
// occurrence of that same call it is), never by its position in the turn. Memory writes
// and new standing intents are staged and applied only once the turn is stored. An account's
// caps (limits/account-limits.ts) are checked when a call is staged, counting what this turn
// staged before it, so a refusal is the presence's answer and not a failed turn.
import { createHash } from 'node:crypto';
import type { IntentResult } from '@presence/protocol';
import { MemoryKey, memoryNamespaces } from '@presence/protocol';
import { z } from 'zod';
import { PresenceError } from '../errors/presence-error';
import type { WalletDomain } from '../intents/wallet-domain';
import type { Principal } from '../keys/key-service';
import type { MemoryService } from '../memory/memory-service';
import { EXAMPLES } from '../replies/replies';
import { parseStanding } from '../standing/standing-parser';
import type { StandingService } from '../standing/standing-service';
import { toStandingView } from '../standing/standing-view';
import type { UsedCall } from '../store/documents';
import type { ToolDef } from './planner-port';
import { type ToolName, toolRefusal } from './tool-scopes';

export type TurnEffects = {
  used: UsedCall[];
  touched: Set<string>;
  /** The keys the message mentions: touched unless the turn refuses something. */
  mentioned: ReadonlySet<string>;
  /** Something asked for was refused (a scope the key lacks, or allow_act): the turn then touches nothing. */
  refused: boolean;
  acted: boolean;
  tx: string | null;
  confirm_id: string | null;
  /** Writes that wait for the turn to be stored, in call order. */
  deferred: (() => Promise<unknown>)[];
};

export const newTurnEffects = (mentioned: Iterable<string> = []): TurnEffects => ({
  used: [],
  touched: new Set(mentioned),
  mentioned: new Set(mentioned),
  refused: false,
  acted: false,
  tx: null,
  confirm_id: null,
  deferred: [],
});

/**
 * Records that the turn refused something it was asked. A refused request does nothing, and
 * touching the keys a message mentions is a memory write: those touches are dropped (keys a
 * tool of this turn pinned stay, with their pin).
 */
export function refuseTurn(effects: TurnEffects): void {
  effects.refused = true;
  for (const k of effects.mentioned) effects.touched.delete(k);
}

/** The same words however they were spaced or cased: "Swap 5  USDC for WETH." ≡ "swap 5 usdc for weth". */
export const normalizeText = (t: string) =>
  t
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/[.!]+$/, '')
    .toLowerCase();

/** Canonical JSON: keys sorted at every level, so equal arguments give equal bytes. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v ?? null);
}

/**
 * The key of an effect within a turn: the turn's Idempotency-Key, the call's content and its
 * occurrence among identical calls of this turn (asking twice for the same swap in one
 * message is two swaps; a re-run of the turn maps each to the same one again).
 */
export function effectKey(turnKey: string, tool: string, args: Record<string, unknown>, occurrence: number): string {
  const digest = createHash('sha256').update(canonical({ tool, args })).digest('base64url').slice(0, 22);
  return `msg:${turnKey}:${digest}:${occurrence}`;
}

/** A stable standing-intent id from an effect key (st_ + 12 base62-ish characters). */
const standingIdFor = (accountId: string, key: string) =>
  `st_${createHash('sha256').update(accountId).update('\0').update(key).digest('base64url').replace(/[-_]/g, '').slice(0, 12)}`;

export type ToolEvents = {
  tool(name: string, args: Record<string, unknown>): void;
  needsConfirm(confirmId: string): void;
};

/** Argument schemas, built once: model routes convert each to JSON Schema once, not every turn. */
const Args = {
  none: z.object({}),
  // A symbol or an address is short: these bounds keep an overlong one out of views and replies.
  pair: z.object({ pair: z.string().max(100).optional() }),
  token: z.object({ token: z.string().max(64) }),
  remember: z.object({ key: MemoryKey, note: z.string().max(500) }),
  forget: z.object({ key: MemoryKey }),
  standing: z.object({ text: z.string().max(300) }),
  cancel: z.object({ id: z.string().max(64) }),
  intent: z.object({ do: z.string().max(300) }),
};

const noChain = () => new PresenceError('chain_unavailable', 'no chain is configured');

/** A tool answers problems as data, so the planner can explain them instead of failing the turn. */
async function guarded(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof PresenceError && e.status < 500) return { error: e.toProblem() };
    throw e;
  }
}

/**
 * A staged write refused at a cap the turn's own check passed (another request filled it
 * since): the turn is stored already, so it ends as answered and the write is dropped.
 */
const unlessAtCap = (write: Promise<unknown>) =>
  write.catch((e: unknown) => {
    if (!(e instanceof PresenceError && e.type === 'conflict' && 'limit' in e.extra)) throw e;
  });

/**
 * The effect key of each call of a turn (see `effectKey`), counting the occurrences of
 * identical calls; null for every call when the turn has no Idempotency-Key (nothing to retry).
 */
function effectKeys(idempotencyKey: string | null) {
  const occurrences = new Map<string, number>();
  return (tool: string, args: Record<string, unknown>) => {
    if (!idempotencyKey) return null;
    const content = canonical({ tool, args });
    const n = occurrences.get(content) ?? 0;
    occurrences.set(content, n + 1);
    return effectKey(idempotencyKey, tool, args, n);
  };
}

/** What createPresenceTools is built from: one turn's caller, services and effects. */
type PresenceToolsDeps = {
  principal: Principal;
  allowAct: boolean;
  wallet: WalletDomain | null;
  memory: MemoryService;
  standing: StandingService;
  effects: TurnEffects;
  on: ToolEvents;
  idempotencyKey: string | null;
  turnContext: Record<string, unknown>;
};

export function createPresenceTools(deps: PresenceToolsDeps): ToolDef[] {
  const { principal: p, wallet, memory, standing, effects, on } = deps;
  /** The effect key of this call, or null when the turn has no Idempotency-Key (nothing to retry). */
  const keyOf = effectKeys(deps.idempotencyKey);
  /** Keys this turn has staged a pin for (a forget of one of them is not "nothing stored"). */
  const staged = new Set<string>();
  let stagedStanding = 0;
  const w = () =>
    wallet ??
    (() => {
      throw noChain();
    })();
  const tools: ToolDef[] = [];
  const turn = { scopes: p.scopes, allowAct: deps.allowAct };
  const def = <A extends z.ZodType>(name: ToolName, description: string, args: A, run: (a: z.infer<A>) => Promise<unknown>) => {
    tools.push({
      name,
      description,
      args,
      run: async (a: z.infer<A>) => {
        const record = { ...(a as Record<string, unknown>) };
        const refused = toolRefusal(name, turn, record);
        if (refused) {
          refuseTurn(effects);
          return { error: refused.toProblem() };
        }
        effects.used.push({ tool: name, args: record });
        on.tool(name, record);
        return guarded(() => run(a));
      },
    } as ToolDef);
  };

  def('chain.tokens', 'Listed tokens with USD prices at the current block.', Args.none, () => w().views.tokens());
  def('chain.pools', 'Uniswap V2 pools with reserves, price and depth in USD. Pass pair like "WETH-USDC" for one.', Args.pair, (a) =>
    w().views.pools(a.pair),
  );
  def('chain.positions', "The presence wallet's holdings and LP positions priced in USD.", Args.none, async () =>
    w().views.positions(await w().wallets.address(p.accountId)),
  );
  def('chain.safety', 'Safety verdict for a token (simulated buy+sell tax, owner/mint privileges, liquidity).', Args.token, (a) =>
    w().views.safety(a.token),
  );
  def('wallet.read', 'The wallet: address, balances, total in USD, spend policy state.', Args.none, () => w().view(p));
  def(
    'wallet.actions',
    'The latest actions, newest first: what each was, its status (executed, held, executing, denied, expired, failed), transaction and block.',
    Args.none,
    async () => ({ actions: await w().actions.recent(p) }),
  );
  def('memory.list', 'What the presence remembers (pinned and fading keywords).', Args.none, () => memory.list(p));
  def(
    'memory.remember',
    `Pin a keyword with a note. key is <namespace>:<name>, namespace one of ${memoryNamespaces.join(', ')}.`,
    Args.remember,
    async (a) => {
      effects.touched.add(a.key);
      // Answered as it will be, written when the turn is stored (a failed turn leaves no pin).
      const preview = await memory.previewPin(p, a.key, a.note, staged);
      staged.add(a.key);
      effects.deferred.push(() => unlessAtCap(memory.pin(p, a.key, a.note)));
      return preview;
    },
  );
  def('memory.forget', 'Forget a keyword at once.', Args.forget, async (a) => {
    // Forgetting must not be undone by this very turn touching the key it mentions.
    effects.touched.delete(a.key);
    const preview = staged.has(a.key) ? { key: a.key, forgotten: true as const } : await memory.previewForget(p, a.key);
    staged.delete(a.key);
    effects.deferred.push(() =>
      memory.forget(p, a.key).catch((e: unknown) => {
        // Gone meanwhile: forgotten all the same.
        if (!(e instanceof PresenceError && e.type === 'not_found')) throw e;
      }),
    );
    return preview;
  });
  def('standing.list', 'Standing intents (alerts, schedules, conditional actions).', Args.none, async () =>
    (await standing.list(p)).map(toStandingView),
  );
  def(
    'standing.create',
    deps.allowAct
      ? `Create a standing intent from a sentence such as "${EXAMPLES.watch}", "${EXAMPLES.daily}" or "${EXAMPLES.actOnPrice}".`
      : `Create a standing intent that speaks, from a sentence such as "${EXAMPLES.watch}" or "${EXAMPLES.daily}". One that acts ("${EXAMPLES.actOnPrice}") needs a message sent with allow_act.`,
    Args.standing,
    async (a) => {
      const spec = parseStanding(a.text);
      if (!spec) throw new PresenceError('intent_unresolved', 'that is not a standing intent I understand');
      const key = keyOf('standing.create', { text: normalizeText(a.text) });
      const id = key ? standingIdFor(p.accountId, key) : undefined;
      // A re-run of a turn that was stored already: the intent it created, not a second one.
      const existing = id ? await standing.get(p, id) : null;
      if (existing) return toStandingView(existing);
      const record = await standing.prepare({ accountId: p.accountId, kind: p.kind, keyId: p.keyId, scopes: p.scopes }, a.text, spec, {
        allowAct: deps.allowAct,
        staged: stagedStanding,
        id,
      });
      stagedStanding++;
      effects.deferred.push(() => unlessAtCap(standing.commit(p, record)));
      return toStandingView(record);
    },
  );
  def(
    'standing.cancel',
    'Cancel one of the standing intents (by the id standing.list gives), when the owner asks to stop it.',
    Args.cancel,
    async (a) => {
      // Answered as it will be, applied when the turn is stored (a failed turn cancels nothing).
      const existing = await standing.get(p, a.id);
      if (existing?.state !== 'active') throw new PresenceError('not_found', `no standing intent ${a.id}`);
      effects.deferred.push(() =>
        standing.cancel(p, a.id).catch((e: unknown) => {
          // Cancelled meanwhile: cancelled all the same.
          if (!(e instanceof PresenceError && e.type === 'not_found')) throw e;
        }),
      );
      return { ...toStandingView(existing), state: 'cancelled' };
    },
  );
  def(
    'intent.submit',
    'Take an on-chain action, e.g. "swap 50 USDC for WETH", "buy $20 of WETH", "wrap 0.1 ETH". Gated by the spend policy; large actions are held for the user to approve.',
    Args.intent,
    async (a) => {
      const r: IntentResult = await w().pipeline.submit({
        caller: p,
        text: a.do,
        source: 'message',
        idempotencyKey: keyOf('intent.submit', { do: normalizeText(a.do) }),
        context: deps.turnContext,
      });
      if (r.status === 'done') {
        effects.acted = true;
        effects.tx = r.tx;
      } else {
        effects.confirm_id = r.confirm_id;
        on.needsConfirm(r.confirm_id);
      }
      return r;
    },
  );
  return tools;
}
