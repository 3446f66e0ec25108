// The chain port: the only way core reads from and writes to an EVM chain. `createViemChain`
// implements it over one JSON-RPC URL with viem. Every RPC has a per-request timeout, a small
// retry count and an outer deadline, so a dead RPC surfaces as ChainUnavailableError instead
// of a hang. Transactions are signed locally; the node only ever sees raw signed bytes.
import {
  type Address,
  BaseError,
  createPublicClient,
  defineChain,
  encodeFunctionData,
  getAddress,
  type Hash,
  type Hex,
  keccak256,
  type PublicClient,
  type StateOverride,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  zeroAddress,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { invalidRequest } from '../errors/presence-error';
import { erc20Abi, factoryAbi, pairAbi, routerAbi, wethAbi } from './abis';
import { ChainUnavailableError, ReceiptTimeoutError, TransactionRejectedError } from './errors';
import { revertReason, toChainError } from './rpc-errors';
import { rpcTransport } from './rpc-transport';
import type { Token, TokenList } from './token-list';

/** An unsigned transaction: what to call, with what, and how much ETH to attach. `gas` skips
 * estimation (needed when the call only succeeds after an earlier, still-pending tx). */
export interface TxRequest {
  to: Address;
  data: Hex;
  value: bigint;
  gas?: bigint;
  /** Added to the estimate for costs the estimate cannot see (see SWAP_HOP_HEADROOM). */
  gasHeadroom?: bigint;
}

/** A transaction with its gas limit and fees filled in, ready to sign at any nonce. */
export interface PreparedTx {
  to: Address;
  data: Hex;
  value: bigint;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface SignedTx {
  raw: Hex;
  hash: Hash;
  from: Address;
  nonce: number;
  gas: bigint;
  maxFeePerGas: bigint;
}

export interface TxReceipt {
  hash: Hash;
  block: bigint;
  status: 'success' | 'reverted';
  gasUsed: bigint;
}

export interface TxInfo {
  hash: Hash;
  from: Address;
  to: Address | null;
  nonce: number;
  value: bigint;
  /** null while pending. */
  block: bigint | null;
}

/** Reserves ordered as asked (A, B), not as the pair stores them. */
export interface PairReserves {
  address: Address;
  tokenA: Address;
  tokenB: Address;
  reserveA: bigint;
  reserveB: bigint;
  block: bigint;
}

export interface Balances {
  owner: Address;
  block: bigint;
  eth: bigint;
  tokens: { token: Token; amount: bigint }[];
}

export interface Quote {
  path: Address[];
  amountIn: bigint;
  amountOut: bigint;
  /** The router's getAmountsOut, one entry per hop plus the input. */
  amounts: bigint[];
  block: bigint;
}

export interface SwapRequest {
  path: Address[];
  amountIn: bigint;
  minAmountOut: bigint;
  recipient: Address;
  /** Unix seconds; defaults to 20 minutes from now. */
  deadline?: bigint;
  /** Pay with native ETH (path[0] must be WETH). */
  nativeIn?: boolean;
  /** Receive native ETH (the last hop must be WETH). */
  nativeOut?: boolean;
  /** Use the router's fee-on-transfer variants. */
  feeOnTransfer?: boolean;
}

export interface CallRequest {
  to: Address;
  data: Hex;
  from?: Address;
  value?: bigint;
  stateOverride?: StateOverride;
}

/** Reads may be pinned to a block so that a view sees one consistent state. */
export interface ReadOptions {
  block?: bigint;
}

export interface ChainPort {
  readonly chainId: number;
  readonly tokenList: TokenList;
  /** Checks that the RPC serves the list's chain; answers { chainId, block }. */
  health(): Promise<{ chainId: number; block: bigint }>;
  blockNumber(): Promise<bigint>;
  balances(owner: Address, opts?: ReadOptions): Promise<Balances>;
  tokenBalance(token: Address, owner: Address, opts?: ReadOptions): Promise<bigint>;
  totalSupply(token: Address, opts?: ReadOptions): Promise<bigint>;
  allowance(token: Address, owner: Address, spender: Address, opts?: ReadOptions): Promise<bigint>;
  /** The Uniswap V2 pair of two tokens, or null when none exists. */
  pair(tokenA: Address, tokenB: Address, opts?: ReadOptions): Promise<PairReserves | null>;
  quoteExactIn(path: Address[], amountIn: bigint, opts?: ReadOptions): Promise<Quote>;
  buildSwap(req: SwapRequest): TxRequest;
  buildApprove(token: Address, spender: Address, amount: bigint): TxRequest;
  buildWrap(amount: bigint): TxRequest;
  buildUnwrap(amount: bigint): TxRequest;
  /** 'ETH' sends the native coin. */
  buildTransfer(token: Address | 'ETH', to: Address, amount: bigint): TxRequest;
  /** Fills gas (estimate + 20% + headroom, unless tx.gas) and EIP-1559 fees, as `from`. */
  prepareTransaction(from: Address, tx: TxRequest): Promise<PreparedTx>;
  /** Signs locally; no RPC, sends nothing. */
  signPrepared(privateKey: Hex, tx: PreparedTx, nonce: number): Promise<SignedTx>;
  /** prepareTransaction then signPrepared. */
  signTransaction(privateKey: Hex, tx: TxRequest, nonce: number): Promise<SignedTx>;
  /** Broadcasts; resending bytes the node already has answers the same hash. After a
   * ChainUnavailableError the node may or may not have the tx: resend the same bytes. */
  sendRaw(raw: Hex): Promise<Hash>;
  waitForReceipt(hash: Hash, timeoutMs?: number): Promise<TxReceipt>;
  /** 'latest' is the number of mined transactions; 'pending' includes the mempool. */
  nonceOf(address: Address, tag: 'pending' | 'latest'): Promise<number>;
  getTransaction(hash: Hash): Promise<TxInfo | null>;
  getCode(address: Address, opts?: ReadOptions): Promise<Hex>;
  /** eth_call, optionally with state overrides (used by the safety probe). */
  call(req: CallRequest, opts?: ReadOptions): Promise<Hex>;
}

export interface ViemChainOptions {
  rpcUrl: string;
  tokenList: TokenList;
  /** Per JSON-RPC request. */
  timeoutMs: number;
  retryCount?: number;
  /** Receipt polling period. */
  pollMs?: number;
  /** Unix milliseconds; injectable for deadlines. */
  now?: () => number;
}

// A Uniswap V2 pair writes its two cumulative-price slots only when block.timestamp has
// moved since its last update. anvil estimates at the latest block's timestamp, so a swap
// mined a second later can cost up to two fresh SSTOREs (2 × 22,100 gas) per hop more than
// estimated and run out of gas. Unused gas is not charged, so the headroom is free.
const SWAP_HOP_HEADROOM = 45_000n;

const FIRST_RECEIPT_POLL_MS = 1;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Deriving an account from its key (secp256k1 point multiplication) costs ~0.5 ms; the
// signer runs once per transaction, so keep the derived accounts of recently used wallets.
const ACCOUNT_CACHE_SIZE = 256;
const accounts = new Map<Hex, ReturnType<typeof privateKeyToAccount>>();
function accountOf(privateKey: Hex) {
  let a = accounts.get(privateKey);
  if (!a) {
    a = privateKeyToAccount(privateKey);
    if (accounts.size >= ACCOUNT_CACHE_SIZE) accounts.delete(accounts.keys().next().value as Hex);
    accounts.set(privateKey, a);
  }
  return a;
}

export function createViemChain(opts: ViemChainOptions): ChainPort {
  const { tokenList, timeoutMs } = opts;
  const retryCount = opts.retryCount ?? 1;
  const retryDelay = 50;
  const pollMs = opts.pollMs ?? 100;
  const now = opts.now ?? Date.now;
  const { router, factory, weth } = tokenList.dex;

  const chain = defineChain({
    id: tokenList.chain.id,
    name: tokenList.chain.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [opts.rpcUrl] } },
  });
  // cacheTime 0: viem otherwise memoises eth_blockNumber for 4 s, which would freeze the
  // per-block caches above us.
  const client: PublicClient = createPublicClient({
    chain,
    cacheTime: 0,
    transport: rpcTransport(opts.rpcUrl, { timeoutMs, retryCount, retryDelay }),
  });

  // Backstop over viem's own per-request timeout: whatever happens inside, the caller gets an
  // answer within this budget.
  const deadlineMs = (timeoutMs + retryDelay * 2 ** retryCount) * (retryCount + 1) * 2 + 250;
  async function guard<T>(what: string, fn: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ChainUnavailableError(`${what}: no answer from the chain RPC within ${deadlineMs} ms`)),
        deadlineMs,
      );
    });
    try {
      return await Promise.race([fn(), deadline]);
    } catch (err) {
      throw toChainError(what, err);
    } finally {
      clearTimeout(timer);
    }
  }

  const blockTag = (o?: ReadOptions) => (o?.block !== undefined ? { blockNumber: o.block } : {});

  // Pair addresses never change once created, so a found pair is cached for good; a missing
  // one is asked again next time (it may have been created since).
  const pairAddresses = new Map<string, Address>();
  async function pairAddress(a: Address, b: Address, o?: ReadOptions): Promise<Address | null> {
    const key = [a, b].sort().join(':');
    const cached = pairAddresses.get(key);
    if (cached) return cached;
    const found = await client.readContract({
      address: factory,
      abi: factoryAbi,
      functionName: 'getPair',
      args: [a, b],
      ...blockTag(o),
    });
    if (found === zeroAddress) return null;
    pairAddresses.set(key, found);
    return found;
  }

  const erc20Read = (
    token: Address,
    fn: 'balanceOf' | 'totalSupply' | 'allowance',
    args: readonly Address[],
    o?: ReadOptions,
  ): Promise<bigint> =>
    client.readContract({ address: token, abi: erc20Abi, functionName: fn, args, ...blockTag(o) } as never) as Promise<bigint>;

  const defaultDeadline = () => BigInt(Math.floor(now() / 1000) + 20 * 60);

  async function signPrepared(privateKey: Hex, tx: PreparedTx, nonce: number): Promise<SignedTx> {
    const account = accountOf(privateKey);
    const raw = await account.signTransaction({ chainId: tokenList.chain.id, type: 'eip1559', nonce, ...tx });
    return { raw, hash: keccak256(raw), from: account.address, nonce, gas: tx.gas, maxFeePerGas: tx.maxFeePerGas };
  }

  const port: ChainPort = {
    chainId: tokenList.chain.id,
    tokenList,

    health: () =>
      guard('health', async () => {
        const [id, block] = await Promise.all([client.getChainId(), client.getBlockNumber()]);
        if (id !== tokenList.chain.id) {
          throw new Error(`the RPC serves chain ${id} but the token list is for chain ${tokenList.chain.id}`);
        }
        return { chainId: id, block };
      }),

    blockNumber: () => guard('eth_blockNumber', () => client.getBlockNumber()),

    balances: (owner, o) =>
      guard('balances', async () => {
        const block = o?.block ?? (await client.getBlockNumber());
        const [eth, ...amounts] = await Promise.all([
          client.getBalance({ address: owner, blockNumber: block }),
          ...tokenList.tokens.map((t) => erc20Read(t.address, 'balanceOf', [owner], { block })),
        ]);
        return {
          owner,
          block,
          eth,
          tokens: tokenList.tokens.map((token, i) => ({ token, amount: amounts[i] ?? 0n })),
        };
      }),

    tokenBalance: (token, owner, o) => guard('balanceOf', () => erc20Read(token, 'balanceOf', [owner], o)),
    totalSupply: (token, o) => guard('totalSupply', () => erc20Read(token, 'totalSupply', [], o)),
    allowance: (token, owner, spender, o) => guard('allowance', () => erc20Read(token, 'allowance', [owner, spender], o)),

    pair: (tokenA, tokenB, o) =>
      guard('pair', async () => {
        if (tokenA === tokenB) throw invalidRequest('a pair needs two different tokens');
        const block = o?.block ?? (await client.getBlockNumber());
        const address = await pairAddress(tokenA, tokenB, { block });
        if (!address) return null;
        const [r0, r1] = await client.readContract({
          address,
          abi: pairAbi,
          functionName: 'getReserves',
          blockNumber: block,
        });
        // Uniswap V2 orders a pair's tokens by address, so no token0() call is needed.
        const aIsToken0 = tokenA.toLowerCase() < tokenB.toLowerCase();
        return {
          address,
          tokenA,
          tokenB,
          reserveA: aIsToken0 ? r0 : r1,
          reserveB: aIsToken0 ? r1 : r0,
          block,
        };
      }),

    quoteExactIn: (path, amountIn, o) =>
      guard('quote', async () => {
        if (path.length < 2) throw invalidRequest('a swap path needs at least two tokens');
        if (amountIn <= 0n) throw invalidRequest('amount in must be positive');
        const block = o?.block ?? (await client.getBlockNumber());
        const amounts = await client.readContract({
          address: router,
          abi: routerAbi,
          functionName: 'getAmountsOut',
          args: [amountIn, path],
          blockNumber: block,
        });
        return { path, amountIn, amountOut: amounts[amounts.length - 1] ?? 0n, amounts: [...amounts], block };
      }),

    buildSwap(req) {
      const { path, amountIn, minAmountOut, recipient } = req;
      const deadline = req.deadline ?? defaultDeadline();
      if (path.length < 2) throw invalidRequest('a swap path needs at least two tokens');
      if (req.nativeIn && req.nativeOut) throw invalidRequest('a swap cannot be native on both ends');
      if (req.nativeIn && path[0] !== weth) throw invalidRequest('a native-in swap must start at WETH');
      if (req.nativeOut && path[path.length - 1] !== weth) {
        throw invalidRequest('a native-out swap must end at WETH');
      }
      const fot = req.feeOnTransfer === true;
      const gasHeadroom = SWAP_HOP_HEADROOM * BigInt(path.length - 1);
      if (req.nativeIn) {
        return {
          to: router,
          value: amountIn,
          gasHeadroom,
          data: encodeFunctionData({
            abi: routerAbi,
            functionName: fot ? 'swapExactETHForTokensSupportingFeeOnTransferTokens' : 'swapExactETHForTokens',
            args: [minAmountOut, path, recipient, deadline],
          }),
        };
      }
      return {
        to: router,
        value: 0n,
        gasHeadroom,
        data: encodeFunctionData({
          abi: routerAbi,
          functionName: req.nativeOut
            ? fot
              ? 'swapExactTokensForETHSupportingFeeOnTransferTokens'
              : 'swapExactTokensForETH'
            : fot
              ? 'swapExactTokensForTokensSupportingFeeOnTransferTokens'
              : 'swapExactTokensForTokens',
          args: [amountIn, minAmountOut, path, recipient, deadline],
        }),
      };
    },

    buildApprove: (token, spender, amount) => ({
      to: token,
      value: 0n,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] }),
    }),

    buildWrap: (amount) => ({ to: weth, value: amount, data: encodeFunctionData({ abi: wethAbi, functionName: 'deposit' }) }),

    buildUnwrap: (amount) => ({
      to: weth,
      value: 0n,
      data: encodeFunctionData({ abi: wethAbi, functionName: 'withdraw', args: [amount] }),
    }),

    buildTransfer: (token, to, amount) =>
      token === 'ETH'
        ? { to, value: amount, data: '0x' }
        : { to: token, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) },

    prepareTransaction: (from, tx) =>
      guard('prepare', async () => {
        // Issued together, so they travel as one batch (viem's estimateFeesPerGas would ask for
        // the block and the tip one after the other).
        const [gas, latest, tip] = await Promise.all([
          tx.gas ??
            client
              .estimateGas({ account: from, to: tx.to, data: tx.data, value: tx.value })
              .then((g) => (g * 12n) / 10n + (tx.gasHeadroom ?? 0n)),
          client.getBlock({ blockTag: 'latest' }),
          client.estimateMaxPriorityFeePerGas(),
        ]);
        if (latest.baseFeePerGas === null) throw invalidRequest('the chain has no EIP-1559 base fee');
        // viem's own rule: room for the base fee to rise 20% before the transaction is mined.
        const maxFeePerGas = (latest.baseFeePerGas * 12n + 9n) / 10n + tip;
        return { to: tx.to, data: tx.data, value: tx.value, gas, maxFeePerGas, maxPriorityFeePerGas: tip };
      }),

    signPrepared,

    signTransaction: async (privateKey, tx, nonce) =>
      signPrepared(privateKey, await port.prepareTransaction(accountOf(privateKey).address, tx), nonce),

    sendRaw: (raw) =>
      guard('eth_sendRawTransaction', async () => {
        const hash = keccak256(raw);
        try {
          return await client.request({ method: 'eth_sendRawTransaction', params: [raw] });
        } catch (err) {
          const mapped = toChainError('eth_sendRawTransaction', err);
          if (mapped instanceof ChainUnavailableError) throw mapped;
          // A resend after a crash or retry: the node may already hold or have mined it.
          const known = await client.getTransaction({ hash }).catch(() => null);
          if (known) return hash;
          throw new TransactionRejectedError(err instanceof BaseError ? revertReason(err) : String(err), {
            cause: err,
          });
        }
      }),

    async waitForReceipt(hash, timeout = 60_000) {
      const until = now() + timeout;
      // A devnet mines within milliseconds of the send, a real chain within seconds: ask
      // again soon, then back off to the poll period, so neither waits a whole period for
      // nothing nor floods the RPC.
      let wait = FIRST_RECEIPT_POLL_MS;
      for (;;) {
        const receipt = await guard('eth_getTransactionReceipt', () =>
          client.getTransactionReceipt({ hash }).catch((err) => {
            if (err instanceof TransactionReceiptNotFoundError) return null;
            throw err;
          }),
        );
        if (receipt) {
          return { hash, block: receipt.blockNumber, status: receipt.status, gasUsed: receipt.gasUsed };
        }
        if (now() >= until) throw new ReceiptTimeoutError(hash, timeout);
        await sleep(Math.min(wait, Math.max(1, until - now())));
        wait = Math.min(pollMs, wait * 2);
      }
    },

    nonceOf: (address, tag) => guard('eth_getTransactionCount', () => client.getTransactionCount({ address, blockTag: tag })),

    getTransaction: (hash) =>
      guard('eth_getTransactionByHash', async () => {
        try {
          const tx = await client.getTransaction({ hash });
          return {
            hash: tx.hash,
            from: getAddress(tx.from),
            to: tx.to ? getAddress(tx.to) : null,
            nonce: tx.nonce,
            value: tx.value,
            block: tx.blockNumber ?? null,
          };
        } catch (err) {
          if (err instanceof TransactionNotFoundError) return null;
          throw err;
        }
      }),

    getCode: (address, o) => guard('eth_getCode', async () => (await client.getCode({ address, ...blockTag(o) })) ?? '0x'),

    call: (req, o) =>
      guard('eth_call', async () => {
        const { data } = await client.call({
          to: req.to,
          data: req.data,
          ...(req.from ? { account: req.from } : {}),
          ...(req.value !== undefined ? { value: req.value } : {}),
          ...(req.stateOverride ? { stateOverride: req.stateOverride } : {}),
          ...blockTag(o),
        });
        return data ?? '0x';
      }),
  };
  return port;
}
