// Moves devnet prices the honest way: a second anvil account trades against the pools.
// WETH is priced from its deepest stable pool, so both WETH-USDC and WETH-DAI are moved.
import type { ChainPort, TokenList } from '@presence/core';
import { type Address, type Hex, toHex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';

const trader = mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 7 });
const key = toHex(trader.getHdKey().privateKey as Uint8Array) as Hex;

export function createMarketMover(chain: ChainPort, list: TokenList) {
  const weth = list.dex.weth;
  const stables = list.tokens.filter((t) => t.stable).map((t) => t.address);
  const send = async (tx: Parameters<ChainPort['signTransaction']>[1]) => {
    const nonce = await chain.nonceOf(trader.address, 'pending');
    const signed = await chain.signTransaction(key, tx, nonce);
    await chain.sendRaw(signed.raw);
    const r = await chain.waitForReceipt(signed.hash, 10_000);
    if (r.status !== 'success') throw new Error('market move reverted');
  };
  return {
    address: trader.address as Address,
    /** Sells `eth` ETH into every stable pool: WETH gets cheaper. */
    async sellEth(eth: bigint) {
      for (const s of stables) {
        await send(chain.buildSwap({ path: [weth, s], amountIn: eth, minAmountOut: 0n, recipient: trader.address, nativeIn: true }));
      }
    },
    /** Buys ETH back with everything the trader holds of each stable: WETH gets dearer. */
    async buyEthWithAllStables() {
      for (const s of stables) {
        const amount = await chain.tokenBalance(s, trader.address);
        if (amount === 0n) continue;
        await send(chain.buildApprove(s, list.dex.router, amount));
        await send(chain.buildSwap({ path: [s, weth], amountIn: amount, minAmountOut: 0n, recipient: trader.address, nativeOut: true }));
      }
    },
  };
}
