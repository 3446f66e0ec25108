// The presence's tools: everything a planner may call during a turn, declared with zod so
// model routes get typed tool schemas. Withdraw and policy changes are deliberately absent,
// and `intent.submit` exists only when the turn allows acting — a message cannot talk the
// presence into more than its key and policy allow. Every call is traced in `used`.
import { z } from 'zod';
import { PresenceError } from '../errors/presence-error';
import type { Principal } from '../keys/key-service';
import type { MemoryService } from '../memory/memory-service';
import { MemoryKey } from '../schemas/memory';
import type { IntentResult } from '../schemas/wallet';
import { parseStanding } from '../standing/standing-parser';
import type { StandingService } from '../standing/standing-service';
import type { UsedCall } from '../store/documents';
import type { WalletDomain } from '../wallet/wallet-domain';
import type { ToolDef } from './planner-port';

export type TurnEffects = {
  used: UsedCall[];
  touched: Set<string>;
  acted: boolean;
  tx: string | null;
  confirm_id: string | null;
};

export type ToolEvents = {
  tool(name: string, args: Record<string, unknown>): void;
  needsConfirm(confirmId: string): void;
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

export function createPresenceTools(deps: {
  principal: Principal;
  allowAct: boolean;
  wallet: WalletDomain | null;
  memory: MemoryService;
  standing: StandingService;
  effects: TurnEffects;
  on: ToolEvents;
  idempotencyKey: string | null;
  turnContext: Record<string, unknown>;
}): ToolDef[] {
  const { principal: p, wallet, memory, standing, effects, on } = deps;
  const w = () =>
    wallet ??
    (() => {
      throw noChain();
    })();
  const tools: ToolDef[] = [];
  const def = <A extends z.ZodType>(name: string, description: string, args: A, run: (a: z.infer<A>) => Promise<unknown>) => {
    tools.push({
      name,
      description,
      args,
      run: async (a: z.infer<A>) => {
        const record = { ...(a as Record<string, unknown>) };
        effects.used.push({ tool: name, args: record });
        on.tool(name, record);
        return guarded(() => run(a));
      },
    } as ToolDef);
  };

  def('chain.tokens', 'Listed tokens with USD prices at the current block.', z.object({}), () => w().views.tokens());
  def(
    'chain.pools',
    'Uniswap V2 pools with reserves, price and depth in USD. Pass pair like "WETH-USDC" for one.',
    z.object({ pair: z.string().optional() }),
    (a) => w().views.pools(a.pair),
  );
  def('chain.positions', "The presence wallet's holdings and LP positions priced in USD.", z.object({}), async () =>
    w().views.positions(await w().wallets.address(p.accountId)),
  );
  def(
    'chain.safety',
    'Safety verdict for a token (simulated buy+sell tax, owner/mint privileges, liquidity).',
    z.object({ token: z.string() }),
    (a) => w().views.safety(a.token),
  );
  def('wallet.read', 'The wallet: address, balances, total in USD, spend policy state.', z.object({}), () => w().view(p.accountId, p.kind));
  def('memory.list', 'What the presence remembers (pinned and fading keywords).', z.object({}), () => memory.list(p.accountId));
  def(
    'memory.remember',
    'Pin a keyword with a note. key is <namespace>:<name>, namespace one of token, pair, addr, topic, pref.',
    z.object({ key: MemoryKey, note: z.string().max(500) }),
    async (a) => {
      effects.touched.add(a.key);
      return memory.pin(p.accountId, p.kind, a.key, a.note);
    },
  );
  def('memory.forget', 'Forget a keyword at once.', z.object({ key: MemoryKey }), (a) => {
    // Forgetting must not be undone by this very turn touching the key it mentions.
    effects.touched.delete(a.key);
    return memory.forget(p.accountId, p.kind, a.key);
  });
  def('standing.list', 'Standing intents (alerts, schedules, conditional actions).', z.object({}), () => standing.list(p.accountId));
  def(
    'standing.create',
    'Create a standing intent from a sentence such as "tell me when WETH is below 2500 USD", "every day at 09:00 tell me my balance" or "if WETH drops below 2000 buy $50 of WETH".',
    z.object({ text: z.string().max(300) }),
    async (a) => {
      const spec = parseStanding(a.text);
      if (!spec) throw new PresenceError('intent_unresolved', 'that is not a standing intent I understand');
      return standing.create(p.accountId, p.kind, a.text, spec, p.scopes.includes('wallet:act'));
    },
  );
  if (deps.allowAct) {
    def(
      'intent.submit',
      'Take an on-chain action, e.g. "swap 50 USDC for WETH", "buy $20 of WETH", "wrap 0.1 ETH". Gated by the spend policy; large actions are held for the user to approve.',
      z.object({ do: z.string().max(300) }),
      async (a) => {
        const r: IntentResult = await w().pipeline.submit({
          accountId: p.accountId,
          mode: p.kind,
          text: a.do,
          source: 'message',
          idempotencyKey: deps.idempotencyKey ? `msg:${deps.idempotencyKey}:${effects.used.length}` : null,
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
  }
  return tools;
}
