// The embedded devnet is the optional package @presence/devnet (anvil, the Uniswap V2
// artifacts, the deploy code): loaded here, and only here, when PRESENCE_CHAIN=devnet, so a
// server for a real network installs without it (`npm install --omit=optional`).
import { ConfigError } from './config';

export type DevnetPackage = typeof import('@presence/devnet');

const PACKAGE = '@presence/devnet';

/** A devnet start on an install without the package: one line, exit code 2 (like a bad setting). */
export class DevnetMissingError extends ConfigError {}

export async function loadDevnet(importer: () => Promise<DevnetPackage> = () => import('@presence/devnet')): Promise<DevnetPackage> {
  try {
    return await importer();
  } catch (e) {
    // Only the package itself missing: a broken install inside it is a different failure.
    const { code, message } = e as NodeJS.ErrnoException;
    if (code === 'ERR_MODULE_NOT_FOUND' && message.includes(`'${PACKAGE}'`)) {
      throw new DevnetMissingError(
        `PRESENCE_CHAIN=devnet needs the optional package ${PACKAGE}, which is not installed: run \`npm install ${PACKAGE}\`, or set PRESENCE_CHAIN, PRESENCE_RPC_URL and PRESENCE_TOKEN_LIST for a real network`,
      );
    }
    throw e;
  }
}
