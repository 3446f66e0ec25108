// The committed SafetyProbe artifact is exactly what scripts/compile-contracts.ts produces from
// the committed source, and the hand-written probe ABI matches the compiled one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { artifactPath, compileContracts } from '../../../scripts/compile-contracts';
import { safetyProbeAbi } from './abis';

const source = 'core/src/chain/contracts/SafetyProbe.sol';

describe('SafetyProbe artifact', () => {
  const compiled = compileContracts([source]).SafetyProbe;

  it('recompiles to the committed bytecode', () => {
    const committed = JSON.parse(readFileSync(artifactPath(source), 'utf8'));
    expect(compiled?.bytecode).toBe(committed.bytecode);
    expect(compiled?.deployedBytecode).toBe(committed.deployedBytecode);
    expect(compiled?.abi).toEqual(committed.abi);
  });

  it('hand-written SafetyProbe ABI matches the compiled one, outputs included', () => {
    type Param = { name?: string; type: string; components?: readonly Param[] };
    const norm = (ps: readonly Param[] = []): Param[] =>
      ps.map((p) => ({ name: p.name ?? '', type: p.type, ...(p.components ? { components: norm(p.components) } : {}) }));
    const fromArtifact = (compiled?.abi ?? []) as { type: string; name?: string; inputs?: Param[]; outputs?: Param[] }[];
    const probe = fromArtifact.find((i) => i.type === 'function' && i.name === 'probe');
    const ours = safetyProbeAbi[0];
    expect(norm(probe?.inputs)).toEqual(norm(ours.inputs));
    expect(norm(probe?.outputs)).toEqual(norm(ours.outputs));
  });
});
