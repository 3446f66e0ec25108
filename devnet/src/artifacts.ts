// Loads contract artifacts for deployment: Uniswap V2 (factory, router02, WETH9) from the
// @uniswap npm packages, and our own tokens from the committed JSON beside their .sol
// sources (imported, so the built dist/ carries them inline). Validated with zod because both
// are files we do not type-check.
import { createRequire } from 'node:module';
import type { Abi, Hex } from 'viem';
import { z } from 'zod';
import scamToken from './contracts/ScamToken.json' with { type: 'json' };
import stableToken from './contracts/StableToken.json' with { type: 'json' };

const HexSchema = z
  .string()
  .regex(/^(0x)?[0-9a-fA-F]+$/, 'bytecode must be hex')
  .transform((s) => (s.startsWith('0x') ? s : `0x${s}`) as Hex);

const ArtifactSchema = z.object({
  abi: z.array(z.record(z.string(), z.unknown())),
  bytecode: HexSchema,
});

export interface Artifact {
  abi: Abi;
  bytecode: Hex;
}

function parse(source: string, json: unknown): Artifact {
  const parsed = ArtifactSchema.safeParse(json);
  if (!parsed.success) throw new Error(`bad contract artifact ${source}: ${parsed.error.issues[0]?.message}`);
  return { abi: parsed.data.abi as unknown as Abi, bytecode: parsed.data.bytecode };
}

const require = createRequire(import.meta.url);

/** npm artifacts carry bytecode without 0x; the schema adds it. */
function npmArtifact(specifier: string): Artifact {
  return parse(specifier, require(specifier));
}

export interface DevnetArtifacts {
  weth9: Artifact;
  factory: Artifact;
  router: Artifact;
  stableToken: Artifact;
  scamToken: Artifact;
}

export function loadArtifacts(): DevnetArtifacts {
  return {
    weth9: npmArtifact('@uniswap/v2-periphery/build/WETH9.json'),
    factory: npmArtifact('@uniswap/v2-core/build/UniswapV2Factory.json'),
    router: npmArtifact('@uniswap/v2-periphery/build/UniswapV2Router02.json'),
    stableToken: parse('contracts/StableToken.json', stableToken),
    scamToken: parse('contracts/ScamToken.json', scamToken),
  };
}
