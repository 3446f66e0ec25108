// Deploys and seeds the devnet's market from the deployer account (anvil's first dev
// account, unlocked, so anvil signs): WETH9, Uniswap V2 factory + router02, USDC, DAI and
// SCAM, then pools at 1 WETH = 3000 USD. Everything happens in a fixed order from nonce 0 of
// a fixed mnemonic, so a fresh chain always gets the same addresses.
import {
  type Abi,
  type Address,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  type Hash,
  type Hex,
  maxUint256,
  type PublicClient,
  parseEther,
  parseUnits,
  type TransactionReceipt,
  toHex,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { erc20Abi, factoryAbi, routerAbi, wethAbi } from './abis';
import type { DevnetArtifacts } from './artifacts';
import { DEPLOY_VERSION, type Deployment } from './deployment';

/** anvil's well-known default mnemonic, pinned so addresses never depend on anvil's default. */
export const DEVNET_MNEMONIC = 'test test test test test test test test test test test junk';
export const DEVNET_CHAIN_ID = 31337;
export const DEPLOYER: Address = mnemonicToAccount(DEVNET_MNEMONIC).address;

const SELL_TAX_BPS = 2500;
const SUPPLY = 10n ** 12n; // one trillion whole tokens each, all held by the deployer
const PREWRAP = parseEther('200000'); // WETH the deployer holds for seeding and funding

/** What the seeding puts in each pool. WETH-SCAM is deliberately thin. */
const POOLS = {
  'WETH-USDC': { weth: parseEther('1000'), other: parseUnits('3000000', 6) },
  'WETH-DAI': { weth: parseEther('1000'), other: parseUnits('3000000', 18) },
  'WETH-SCAM': { weth: parseEther('5'), other: parseUnits('5000000', 18) },
} as const;

/** What fund() gives a new wallet. */
export const FUNDING = {
  eth: parseEther('10'),
  weth: parseEther('5'),
  usdc: parseUnits('10000', 6),
  dai: parseUnits('10000', 18),
} as const;

export interface DeployerRpc {
  client: PublicClient;
  send(what: string, tx: { to?: Address; data?: Hex; value?: bigint }): Promise<TransactionReceipt>;
}

/** Sends from the unlocked deployer and waits for the (automined) receipt. */
export function deployerRpc(client: PublicClient, timeoutMs: number): DeployerRpc {
  return {
    client,
    async send(what, tx) {
      const params = {
        from: DEPLOYER,
        to: tx.to,
        data: tx.data,
        value: tx.value ? toHex(tx.value) : undefined,
      };
      const hash = (await client.request({ method: 'eth_sendTransaction', params: [params] } as never)) as Hash;
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 10, timeout: timeoutMs });
      if (receipt.status !== 'success') throw new Error(`devnet: ${what} reverted`);
      return receipt;
    },
  };
}

async function deployContract(
  rpc: DeployerRpc,
  what: string,
  artifact: { abi: Abi; bytecode: Hex },
  args: readonly unknown[],
): Promise<Address> {
  const data = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args });
  const receipt = await rpc.send(`deploy ${what}`, { data });
  if (!receipt.contractAddress) throw new Error(`devnet: deploying ${what} produced no contract`);
  return getAddress(receipt.contractAddress);
}

const scamAbi = [
  {
    type: 'function',
    name: 'setPool',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'pool', type: 'address' },
      { name: 'taxed', type: 'bool' },
    ],
    outputs: [],
  },
] as const;

/** Adds each pool's liquidity (POOLS) through the router; answers the pairs' addresses by name. */
async function seedPools(
  rpc: DeployerRpc,
  { weth, factory, router }: { weth: Address; factory: Address; router: Address },
  others: Record<keyof typeof POOLS, Address>,
): Promise<Record<string, Address>> {
  const pairs: Record<string, Address> = {};
  for (const [name, amounts] of Object.entries(POOLS) as [keyof typeof POOLS, (typeof POOLS)[keyof typeof POOLS]][]) {
    const other = others[name];
    await rpc.send(`seed ${name}`, {
      to: router,
      data: encodeFunctionData({
        abi: routerAbi,
        functionName: 'addLiquidity',
        args: [weth, other, amounts.weth, amounts.other, 0n, 0n, DEPLOYER, maxUint256],
      }),
    });
    pairs[name] = await rpc.client.readContract({
      address: factory,
      abi: factoryAbi,
      functionName: 'getPair',
      args: [weth, other],
    });
  }
  return pairs;
}

export async function deployMarket(rpc: DeployerRpc, artifacts: DevnetArtifacts): Promise<Deployment> {
  const weth = await deployContract(rpc, 'WETH9', artifacts.weth9, []);
  const factory = await deployContract(rpc, 'UniswapV2Factory', artifacts.factory, [DEPLOYER]);
  const router = await deployContract(rpc, 'UniswapV2Router02', artifacts.router, [factory, weth]);
  const usdc = await deployContract(rpc, 'USDC', artifacts.stableToken, ['USD Coin', 'USDC', 6, SUPPLY * 10n ** 6n, DEPLOYER]);
  const dai = await deployContract(rpc, 'DAI', artifacts.stableToken, ['Dai Stablecoin', 'DAI', 18, SUPPLY * 10n ** 18n, DEPLOYER]);
  const scam = await deployContract(rpc, 'SCAM', artifacts.scamToken, [
    'Totally Safe Token',
    'SCAM',
    BigInt(SELL_TAX_BPS),
    SUPPLY * 10n ** 18n,
  ]);

  await rpc.send('wrap ETH', { to: weth, data: encodeFunctionData({ abi: wethAbi, functionName: 'deposit' }), value: PREWRAP });
  for (const [what, token] of [
    ['WETH', weth],
    ['USDC', usdc],
    ['DAI', dai],
    ['SCAM', scam],
  ] as const) {
    await rpc.send(`approve ${what}`, {
      to: token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [router, maxUint256] }),
    });
  }

  const pairs = await seedPools(rpc, { weth, factory, router }, { 'WETH-USDC': usdc, 'WETH-DAI': dai, 'WETH-SCAM': scam });
  // The pair exists only once seeded, so it is marked as taxed afterwards; the seeding
  // transfer itself came from the owner, who is exempt.
  const scamPair = pairs['WETH-SCAM'];
  if (!scamPair) throw new Error('devnet: WETH-SCAM pool missing after seeding');
  await rpc.send('tax SCAM pool', {
    to: scam,
    data: encodeFunctionData({ abi: scamAbi, functionName: 'setPool', args: [scamPair, true] }),
  });

  return {
    $comment: 'Written by the Presence devnet; a TokenList plus devnet bookkeeping. Safe to delete with state.json.',
    chain: { id: DEVNET_CHAIN_ID, name: 'devnet' },
    dex: { kind: 'uniswap-v2', factory, router, weth },
    tokens: [
      { symbol: 'WETH', address: weth, decimals: 18 },
      { symbol: 'USDC', address: usdc, decimals: 6, stable: true },
      { symbol: 'DAI', address: dai, decimals: 18, stable: true },
      { symbol: 'SCAM', address: scam, decimals: 18 },
    ],
    devnet: { version: DEPLOY_VERSION, deployer: DEPLOYER, pairs, sellTaxBps: SELL_TAX_BPS },
  };
}

/** Gives `to` the FUNDING amounts from the deployer. Sequential on purpose: anvil assigns the
 * deployer's nonces, and concurrent eth_sendTransaction calls could race for one. */
export async function fundWallet(rpc: DeployerRpc, deployment: Deployment, to: Address): Promise<void> {
  const token = (symbol: string) => {
    const t = deployment.tokens.find((x) => x.symbol === symbol);
    if (!t) throw new Error(`devnet deployment lacks ${symbol}`);
    return t.address;
  };
  const transfer = (amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
  await rpc.send('fund ETH', { to, value: FUNDING.eth });
  await rpc.send('fund WETH', { to: token('WETH'), data: transfer(FUNDING.weth) });
  await rpc.send('fund USDC', { to: token('USDC'), data: transfer(FUNDING.usdc) });
  await rpc.send('fund DAI', { to: token('DAI'), data: transfer(FUNDING.dai) });
}
