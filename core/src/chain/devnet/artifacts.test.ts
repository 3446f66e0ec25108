// The committed artifacts are exactly what scripts/compile-contracts.ts produces from the
// committed sources, and the hand-written probe ABI matches the compiled one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { artifactPath, compileContracts, contractSources } from '../../../scripts/compile-contracts';
import { safetyProbeAbi } from '../abis';
import { loadArtifacts } from './artifacts';

describe('contract artifacts', () => {
  const compiled = compileContracts();

  it.each(contractSources)('%s recompiles to the committed bytecode', (source) => {
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

  it('hand-written SafetyProbe ABI matches the compiled one, outputs included', () => {
    type Param = { name?: string; type: string; components?: readonly Param[] };
    const norm = (ps: readonly Param[] = []): Param[] =>
      ps.map((p) => ({ name: p.name ?? '', type: p.type, ...(p.components ? { components: norm(p.components) } : {}) }));
    const fromArtifact = (compiled.SafetyProbe?.abi ?? []) as { type: string; name?: string; inputs?: Param[]; outputs?: Param[] }[];
    const probe = fromArtifact.find((i) => i.type === 'function' && i.name === 'probe');
    const ours = safetyProbeAbi[0];
    expect(norm(probe?.inputs)).toEqual(norm(ours.inputs));
    expect(norm(probe?.outputs)).toEqual(norm(ours.outputs));
  });

  it('loads npm and local artifacts with 0x-prefixed bytecode', () => {
    const a = loadArtifacts();
    for (const artifact of Object.values(a)) {
      expect(artifact.bytecode.startsWith('0x')).toBe(true);
      expect(artifact.bytecode.length).toBeGreaterThan(100);
    }
  });
});
