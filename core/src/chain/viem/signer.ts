// Local signing: a prepared transaction becomes raw EIP-1559 bytes and their hash without any
// RPC, so the node only ever sees signed bytes and never a key.
import type { Hex } from 'viem';
import { keccak256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { PreparedTx, SignedTx } from '../chain-port';

// Deriving an account from its key (secp256k1 point multiplication) costs ~0.5 ms; the
// signer runs once per transaction, so keep the derived accounts of recently used wallets.
const ACCOUNT_CACHE_SIZE = 256;
const accounts = new Map<Hex, ReturnType<typeof privateKeyToAccount>>();

export function accountOf(privateKey: Hex) {
  let a = accounts.get(privateKey);
  if (!a) {
    a = privateKeyToAccount(privateKey);
    if (accounts.size >= ACCOUNT_CACHE_SIZE) accounts.delete(accounts.keys().next().value as Hex);
    accounts.set(privateKey, a);
  }
  return a;
}

export async function signPrepared(chainId: number, privateKey: Hex, tx: PreparedTx, nonce: number): Promise<SignedTx> {
  const account = accountOf(privateKey);
  const raw = await account.signTransaction({ chainId, type: 'eip1559', nonce, ...tx });
  return { raw, hash: keccak256(raw), from: account.address, nonce, gas: tx.gas, maxFeePerGas: tx.maxFeePerGas };
}
