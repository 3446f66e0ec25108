// ABI fragments the safety check (safety.ts) calls: owner/mint probing and the SafetyProbe
// contract. Apart from abis.ts so that core's root entry loads only viem/utils, not viem's root.
import { parseAbi } from 'viem/utils';

export const ownableAbi = parseAbi(['function owner() view returns (address)']);

export const mintAbi = parseAbi(['function mint(address to, uint256 amount)']);

/** Must match contracts/SafetyProbe.sol; a test compares it with the compiled artifact. */
export const safetyProbeAbi = parseAbi([
  'struct Result { uint8 stage; uint256 ethIn; uint256 buyPairOut; uint256 buyReceived; uint256 sellPairIn; uint256 ethOut; }',
  'function probe(address router, address weth, address token, address pair, uint256 ethIn) returns (Result r)',
]);
