// Router approvals, once per token and spender. Concurrent first intents of a fresh wallet
// each plan an approval (each read the allowance before any was sent); signing them all would
// send one approval per intent. So an approval step is checked again at signing time, under
// the wallet's nonce lock: if the allowance on chain — or an approval this process signed
// whose transaction is not mined yet — already covers what the swap behind it spends, the
// step is dropped from the plan. (Across servers the pending approval of another server is
// seen once mined; at worst one more approval, of the same bounded amount, is sent.)
import type { Address } from 'viem';
import type { ChainReads } from '../../chain/chain-reads';
import type { PlannedTx } from '../../store/documents';

/** The amount a router swap spends: `amountIn`, the first argument of every token-in swap the planner builds. */
const amountInOf = (swap: PlannedTx) => BigInt(`0x${swap.data.slice(10, 74)}`);

export type ApprovalLedger = ReturnType<typeof createApprovalLedger>;

export function createApprovalLedger(chain: ChainReads) {
  /** Approvals signed here and not yet seen mined: owner:token:spender → amount and nonce. */
  const signed = new Map<string, { amount: bigint; nonce: number }>();
  // approve(address spender, uint256 amount): the selector, then one 32-byte word each.
  const parse = (owner: Address, approve: PlannedTx) => {
    const spender = `0x${approve.data.slice(34, 74)}` as Address;
    const amount = BigInt(`0x${approve.data.slice(74, 138)}`);
    const token = approve.to as Address;
    return { token, spender, amount, key: `${owner}:${token}:${spender}`.toLowerCase() };
  };
  return {
    /** Whether `approve` (followed by `swap`) is unneeded now. Call under the wallet's nonce lock. */
    async covered(owner: Address, approve: PlannedTx, swap: PlannedTx | undefined): Promise<boolean> {
      if (!swap) return false;
      const { token, spender, key } = parse(owner, approve);
      const need = amountInOf(swap);
      const [allowance, mined] = await Promise.all([chain.allowance(token, owner, spender), chain.nonceOf(owner, 'latest')]);
      const mine = signed.get(key);
      if (mine && mined > mine.nonce) signed.delete(key);
      const pending = mine && mined <= mine.nonce ? mine.amount : 0n;
      return allowance >= need || pending >= need;
    },
    /** Records an approval just signed at `nonce`. */
    signed(owner: Address, approve: PlannedTx, nonce: number) {
      const { amount, key } = parse(owner, approve);
      signed.set(key, { amount, nonce });
    },
    /** Forgets the approval signed at `nonce`: it was never sent (its batch could not use it). */
    unsigned(owner: Address, approve: PlannedTx, nonce: number) {
      const { key } = parse(owner, approve);
      if (signed.get(key)?.nonce === nonce) signed.delete(key);
    },
  };
}
