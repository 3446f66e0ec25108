import { describe, expect, it } from 'vitest';
import type { ChainPort } from '../chain/chain-port';
import type { MarketSnapshot } from '../chain/market';
import type { TokenList } from '../chain/token-list';
import { planIntent } from './intent-planner';

// Found by the API fuzz test: viem refuses to encode such an address, which was a 500.
describe('planIntent: send', () => {
  it('refuses an address whose letter case does not match its EIP-55 checksum, before touching the chain', async () => {
    const untouched = new Proxy({}, { get: () => expect.unreachable('the chain was asked') }) as unknown;
    const plan = planIntent(
      { kind: 'send', amount: '1', token: 'USDC', to: '0xAC4ABDb88B04b9EBC7eeda3e4EDB9AEefaAcFCaC' },
      {
        chain: untouched as ChainPort,
        tokenList: untouched as TokenList,
        snapshot: { block: 1n } as unknown as MarketSnapshot,
        owner: '0x000000000000000000000000000000000000dEaD',
        slippageBps: 100,
      },
    );
    await expect(plan).rejects.toMatchObject({ type: 'intent_unresolved', detail: expect.stringMatching(/checksum/) });
  });
});
