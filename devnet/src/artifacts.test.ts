// The committed token artifacts are exactly what scripts/compile-contracts.ts produces from the
// committed sources, and every artifact the deployment uses loads with 0x-prefixed bytecode.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { artifactPath, compileContracts } from '../../scripts/compile-contracts';
import { loadArtifacts } from './artifacts';

const sources = ['devnet/src/contracts/StableToken.sol', 'devnet/src/contracts/ScamToken.sol'] as const;

describe('contract artifacts', () => {
  const compiled = compileContracts(sources);

  it.each(sources)('%s recompiles to the committed bytecode', (source) => {
    const name =
      source
        .split('/')
        .pop()
        ?.replace(/\.sol$/, '') ?? '';
    const committed = JSON.parse(readFileSync(artifactPath(source), 'utf8'));
    expect(compiled[name]?.bytecode).toBe(committed.bytecode);
    expect(compiled[name]?.deployedBytecode).toBe(committed.deployedBytecode);
    expect(compiled[name]?.abi).toEqual(committed.abi);
  });

  it('loads npm and local artifacts with 0x-prefixed bytecode', () => {
    const a = loadArtifacts();
    for (const artifact of Object.values(a)) {
      expect(artifact.bytecode.startsWith('0x')).toBe(true);
      expect(artifact.bytecode.length).toBeGreaterThan(100);
    }
  });
});
