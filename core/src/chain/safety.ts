// Token safety from real checks at one block: (1) a buy and a sell through the DEX router,
// simulated in a single eth_call by SafetyProbe whose code is injected with a state override
// (nothing is deployed or sent), measuring buy/sell tax at the pair and the round-trip loss;
// (2) owner() and a mint function found in the bytecode, with a simulated mint from the
// owner; (3) the USD depth of the token's WETH pool. The verdict is a fixed rule over those.
import { readableUsd, type SafetyView } from '@presence/protocol';
import type { Address, Hex } from 'viem';
import { decodeFunctionResult, encodeFunctionData, getAddress, toFunctionSelector } from 'viem/utils';
import { formatUnits, USD_DECIMALS, usdToNumber } from './amounts';
import type { ChainReads } from './chain-reads';
// Imported, not read from disk: a bundle (the published dist/) carries it inline.
import probeArtifact from './contracts/SafetyProbe.json' with { type: 'json' };
import { ChainRevertedError } from './errors';
import type { MarketSnapshot, Pool } from './market';
import { mintAbi, ownableAbi, safetyProbeAbi } from './probe-abis';
import { type Token, type TokenList, wethOf } from './token-list';

export type Verdict = SafetyView['verdict'];

/** Thresholds of the verdict rule, in basis points and USD (1e18-scaled). */
export const SAFETY_RULES = {
  unsafeTaxBps: 1000,
  cautionTaxBps: 10,
  thinDepthUsd: 50_000n * 10n ** 18n,
} as const;

// Any address works: the override gives it code and balance for the one call.
const PROBE_ADDRESS: Address = '0x5afe5afe5afe5afe5afe5afe5afe5afe5afe5afe';
const PROBE_CALLER: Address = '0x000000000000000000000000000000000000dEaD';
/** viem's zeroAddress, spelled out: its root entry is more than core's root should load. */
const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000';
const MAX_PROBE_WEI = 10n ** 16n; // 0.01 ETH: enough precision, negligible impact on deep pools

const probeCode = (() => {
  const artifact = probeArtifact as { deployedBytecode?: string };
  if (!artifact.deployedBytecode?.startsWith('0x')) throw new Error('SafetyProbe artifact lacks deployedBytecode');
  return artifact.deployedBytecode as Hex;
})();

/** PUSH4 <selector>: how solc's dispatcher embeds each external function's selector. */
const MINT_SELECTORS = ['function mint(address,uint256)', 'function mint(uint256)'].map((sig) => `63${toFunctionSelector(sig).slice(2)}`);

const bps = (lost: bigint, of: bigint): number | null => {
  if (of <= 0n) return null;
  const v = (lost * 10_000n + of / 2n) / of;
  return Number(v < 0n ? 0n : v);
};

interface ProbeOutcome {
  stage: number;
  buyTaxBps: number | null;
  sellTaxBps: number | null;
  roundTripBps: number | null;
}

export function createSafetyChecker(deps: { chain: ChainReads; tokenList: TokenList }) {
  const { chain, tokenList } = deps;
  const weth = wethOf(tokenList);

  async function probe(token: Token, pool: Pool, block: bigint): Promise<ProbeOutcome> {
    const wethReserve = pool.tokenA.address === weth.address ? pool.reserveA : pool.reserveB;
    const ethIn = wethReserve / 1000n < MAX_PROBE_WEI ? wethReserve / 1000n : MAX_PROBE_WEI;
    if (ethIn === 0n) return { stage: -1, buyTaxBps: null, sellTaxBps: null, roundTripBps: null };
    const data = encodeFunctionData({
      abi: safetyProbeAbi,
      functionName: 'probe',
      args: [tokenList.dex.router, weth.address, token.address, pool.address, ethIn],
    });
    const ret = await chain.call(
      {
        to: PROBE_ADDRESS,
        from: PROBE_CALLER,
        data,
        stateOverride: [{ address: PROBE_ADDRESS, code: probeCode, balance: ethIn * 2n }],
      },
      { block },
    );
    const r = decodeFunctionResult({ abi: safetyProbeAbi, functionName: 'probe', data: ret });
    return {
      stage: r.stage,
      buyTaxBps: r.stage !== 1 ? bps(r.buyPairOut - r.buyReceived, r.buyPairOut) : null,
      sellTaxBps: r.stage === 0 ? bps(r.buyReceived - r.sellPairIn, r.buyReceived) : null,
      roundTripBps: r.stage === 0 ? bps(r.ethIn - r.ethOut, r.ethIn) : null,
    };
  }

  async function ownerOf(token: Token, block: bigint): Promise<Address | null> {
    try {
      const ret = await chain.call({ to: token.address, data: encodeFunctionData({ abi: ownableAbi, functionName: 'owner' }) }, { block });
      if (ret.length < 66) return null;
      const owner = decodeFunctionResult({ abi: ownableAbi, functionName: 'owner', data: ret });
      return owner === ZERO_ADDRESS ? null : getAddress(owner);
    } catch (err) {
      if (err instanceof ChainRevertedError) return null; // no owner() at all
      throw err;
    }
  }

  async function ownerCanMint(token: Token, owner: Address, block: bigint): Promise<boolean> {
    try {
      await chain.call(
        {
          to: token.address,
          from: owner,
          data: encodeFunctionData({ abi: mintAbi, functionName: 'mint', args: [owner, 1n] }),
        },
        { block },
      );
      return true;
    } catch (err) {
      if (err instanceof ChainRevertedError) return false;
      throw err;
    }
  }

  return {
    async check(token: Token, market: MarketSnapshot): Promise<SafetyView> {
      const block = market.block;
      const found = findings();
      const { reasons, raise } = found;
      const isWeth = token.address === weth.address;
      const pool = pricingPool(market, token, weth);
      const depth = pool ? depthOf(market, pool) : 0n;

      const [code, owner, outcome] = await Promise.all([
        chain.getCode(token.address, { block }),
        ownerOf(token, block),
        isWeth || !pool ? Promise.resolve(null) : probe(token, pool, block),
      ]);
      if (code === '0x') raise('unsafe', 'no contract code at this address');

      const measured = {
        buy_tax_bps: isWeth ? 0 : (outcome?.buyTaxBps ?? null),
        sell_tax_bps: isWeth ? 0 : (outcome?.sellTaxBps ?? null),
        round_trip_loss_bps: isWeth ? 0 : (outcome?.roundTripBps ?? null),
      };
      if (isWeth) reasons.push('the DEX’s wrapped native token: 1:1 deposit and withdraw');
      else if (!pool) raise('caution', `no ${token.symbol}-WETH pool: a buy and sell cannot be simulated`);
      else if (outcome) judgeRoundTrip(raise, outcome.stage, measured);

      const hasMint = MINT_SELECTORS.some((s) => code.includes(s));
      if (hasMint) {
        if (owner && (await ownerCanMint(token, owner, block))) {
          raise('caution', `the owner ${owner} can mint new supply (simulated mint succeeded)`);
        } else {
          raise('caution', 'the contract has a mint function');
        }
      }
      if (pool && depth < SAFETY_RULES.thinDepthUsd) {
        raise('caution', `thin liquidity: the ${pool.name} pool holds about ${readableUsd(formatUnits(depth, USD_DECIMALS), 0)}`);
      }
      if (reasons.length === 0) reasons.push('no tax, no mint privilege, deep liquidity');

      return {
        token: token.symbol,
        address: token.address,
        verdict: found.verdict(),
        reasons,
        measured,
        owner,
        can_mint: hasMint,
        depth_usd: usdToNumber(depth),
        as_of_block: Number(block),
      };
    },
  };
}

/** Reasons gathered, and the worst verdict any of them carries. */
function findings() {
  const reasons: string[] = [];
  let verdict: Verdict = 'safe';
  return {
    reasons,
    raise(to: Verdict, reason: string) {
      reasons.push(reason);
      if (to === 'unsafe' || (to === 'caution' && verdict === 'safe')) verdict = to;
    },
    verdict: () => verdict,
  };
}

/** WETH is priced through its deepest stable pool; everything else trades against WETH. */
function pricingPool(market: MarketSnapshot, token: Token, weth: Token): Pool | undefined {
  if (token.address !== weth.address) return market.poolOf(token, weth);
  return market.pools
    .filter((p) => p.tokenA.address === weth.address || p.tokenB.address === weth.address)
    .sort((x, y) => (depthOf(market, y) > depthOf(market, x) ? 1 : -1))[0];
}

/** Why a simulated buy and sell stopped at each stage (the probe's `stage`; 0 went through). */
const STAGE_REASON: Record<number, string> = {
  [-1]: 'the WETH pool is empty: a buy and sell cannot be simulated',
  1: 'a simulated buy through the router reverted',
  2: 'a simulated buy delivered no tokens',
  3: 'approving the router to sell reverted',
  4: 'a simulated sell reverted: bought tokens cannot be sold (honeypot)',
};

/** What a simulated buy and sell at the pool says: where it stopped, and the taxes it measured. */
function judgeRoundTrip(
  raise: (to: Verdict, reason: string) => void,
  stage: number,
  measured: { buy_tax_bps: number | null; sell_tax_bps: number | null },
) {
  const why = STAGE_REASON[stage];
  if (why) raise(stage === -1 ? 'caution' : 'unsafe', why);
  for (const [side, taxBps] of [
    ['sell', measured.sell_tax_bps],
    ['buy', measured.buy_tax_bps],
  ] as const) {
    if (taxBps === null) continue;
    const text = `${side}s are taxed ${formatUnits(BigInt(taxBps), 2, 2)}% (simulated ${side} measured at the pool)`;
    if (taxBps >= SAFETY_RULES.unsafeTaxBps) raise('unsafe', text);
    else if (taxBps >= SAFETY_RULES.cautionTaxBps) raise('caution', text);
  }
}

/** USD value of both sides of a pool (0 when a side has no price). */
export function depthOf(market: MarketSnapshot, pool: Pool): bigint {
  const a = market.prices.valueInUsd(pool.tokenA, pool.reserveA) ?? 0n;
  const b = market.prices.valueInUsd(pool.tokenB, pool.reserveB) ?? 0n;
  return a + b;
}
