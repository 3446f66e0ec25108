// The devnet package missing is one line naming what to install; anything else that goes wrong
// while loading it is not hidden behind that line.
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config';
import { DevnetMissingError, loadDevnet } from './load-devnet';

const notFound = (specifier: string) =>
  Object.assign(new Error(`Cannot find package '${specifier}' imported from /srv/app/node_modules/x/dist/cli.js`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });

describe('loadDevnet', () => {
  it('loads the workspace package', async () => {
    expect(typeof (await loadDevnet()).startDevnet).toBe('function');
  });

  it('says in one line what to install when the package is missing: a ConfigError (exit code 2)', async () => {
    const e = await loadDevnet(() => Promise.reject(notFound('@presence/devnet'))).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DevnetMissingError);
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as Error).message).toContain('npm install @presence/devnet');
    expect((e as Error).message).not.toContain('\n');
  });

  it('lets a broken install inside the package through as it is', async () => {
    const broken = notFound('@foundry-rs/anvil');
    await expect(loadDevnet(() => Promise.reject(broken))).rejects.toBe(broken);
  });
});
