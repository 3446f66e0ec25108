// The devnet's deployment record: a token list in the same JSON format as PRESENCE_TOKEN_LIST
// (Presence parses it with its own TokenListSchema, like any network's list) plus what the
// devnet itself needs to reuse a cached chain. Cached as <dataDir>/devnet/deployment.json,
// written atomically. The shape is spelled out here because this package depends on no
// Presence package; the rules on symbols and duplicates are the consumer's to enforce.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { getAddress, isAddress } from 'viem';
import { z } from 'zod';

const AddressSchema = z
  .string()
  .refine((s) => isAddress(s, { strict: false }), 'not a 20-byte hex address')
  .transform((s) => getAddress(s));

/** Bump when deploy.ts changes what it deploys or seeds; an older cache is then redeployed. */
export const DEPLOY_VERSION = 1;

export const DeploymentSchema = z.object({
  $comment: z.string().optional(),
  chain: z.object({ id: z.number().int().positive(), name: z.string().min(1) }),
  dex: z.object({ kind: z.literal('uniswap-v2'), factory: AddressSchema, router: AddressSchema, weth: AddressSchema }),
  tokens: z
    .array(z.object({ symbol: z.string(), address: AddressSchema, decimals: z.number().int(), stable: z.boolean().optional() }))
    .min(1),
  devnet: z.object({
    version: z.number().int(),
    deployer: AddressSchema,
    /** Pool addresses by pair name, e.g. "WETH-USDC". */
    pairs: z.record(z.string(), AddressSchema),
    sellTaxBps: z.number().int(),
  }),
});

export type Deployment = z.infer<typeof DeploymentSchema>;

/** The cached deployment, or null when absent, unreadable, invalid or from an older version. */
export async function readDeployment(path: string): Promise<Deployment | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = DeploymentSchema.safeParse(JSON.parse(text));
    return parsed.success && parsed.data.devnet.version === DEPLOY_VERSION ? parsed.data : null;
  } catch {
    return null;
  }
}

export async function writeDeployment(path: string, deployment: Deployment): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(deployment, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, path);
}
