// Compiles the project's own Solidity sources (core's safety probe, the devnet's tokens) with
// the pure-JS `solc` package and writes one `<Name>.json` artifact beside each `<Name>.sol`. The
// artifacts are committed so the runtime never needs solc; a test in each package recompiles
// and compares. Shared by core and @presence/devnet, hence here at the root. A source may
// import a file beside it (the devnet tokens share DevnetERC20.sol), which gets no artifact.
//
//   npx tsx scripts/compile-contracts.ts          (from the repository root)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import solc from 'solc';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every source we compile, relative to the repository root. One contract per file, named like it. */
export const contractSources = [
  'core/src/chain/contracts/SafetyProbe.sol',
  'devnet/src/contracts/StableToken.sol',
  'devnet/src/contracts/ScamToken.sol',
] as const;
export type ContractSource = (typeof contractSources)[number];

export interface CompiledContract {
  contractName: string;
  compiler: string;
  abi: unknown[];
  bytecode: `0x${string}`;
  deployedBytecode: `0x${string}`;
}

// Pinned so the output does not drift with solc's default; cancun runs on anvil and on the
// L2s a real token list would point at (the probe's code is executed there via eth_call).
const settings = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
};

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >;
}

/** Compiles `only` (default: every source) in one solc run. */
export function compileContracts(only: readonly ContractSource[] = contractSources): Record<string, CompiledContract> {
  // Sources are keyed by bare file name, not path, so the metadata hash embedded in the
  // bytecode does not depend on where the repository is checked out.
  const sources: Record<string, { content: string }> = {};
  for (const rel of only) {
    sources[basename(rel)] = { content: readFileSync(join(root, rel), 'utf8') };
  }
  // Imports (`import "./X.sol"`) resolve to bare names too, so they are looked up beside the sources.
  const dirs = [...new Set(only.map((rel) => dirname(join(root, rel))))];
  const findImports = (path: string) => {
    const file = dirs.map((dir) => join(dir, path)).find((f) => existsSync(f));
    return file ? { contents: readFileSync(file, 'utf8') } : { error: `${path} is not beside any source` };
  };
  const input = JSON.stringify({ language: 'Solidity', sources, settings });
  const output = JSON.parse(solc.compile(input, { import: findImports })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }
  const result: Record<string, CompiledContract> = {};
  for (const rel of only) {
    const file = basename(rel);
    const name = file.replace(/\.sol$/, '');
    const compiled = output.contracts?.[file]?.[name];
    if (!compiled) throw new Error(`solc produced no contract ${name} in ${file}`);
    result[name] = {
      contractName: name,
      compiler: String(solc.version()),
      abi: compiled.abi,
      bytecode: `0x${compiled.evm.bytecode.object}`,
      deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
    };
  }
  return result;
}

export function artifactPath(rel: ContractSource): string {
  return join(root, rel.replace(/\.sol$/, '.json'));
}

function main(): void {
  const compiled = compileContracts();
  for (const rel of contractSources) {
    const name = basename(rel).replace(/\.sol$/, '');
    writeFileSync(artifactPath(rel), `${JSON.stringify(compiled[name], null, 2)}\n`);
    console.log(`wrote ${artifactPath(rel)}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
