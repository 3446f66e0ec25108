// The devnet's deployment record: a TokenList (so the rest of core treats the devnet like any
// network) plus what the devnet itself needs to reuse a cached chain. Cached as
// <dataDir>/devnet/deployment.json, written atomically.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { AddressSchema, checkTokenList, TokenListObject } from '../token-list';

/** Bump when deploy.ts changes what it deploys or seeds; an older cache is then redeployed. */
export const DEPLOY_VERSION = 1;

export const DeploymentSchema = TokenListObject.extend({
  devnet: z.object({
    version: z.number().int(),
    deployer: AddressSchema,
    /** Pool addresses by pair name, e.g. "WETH-USDC". */
    pairs: z.record(z.string(), AddressSchema),
    sellTaxBps: z.number().int(),
  }),
}).superRefine(checkTokenList);

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
