// The embedded devnet's anvil killed under a running server (the real entry point, as `npm
// start` runs it): the devnet restarts it on the same URL from its saved state and the chain
// is back in /v1/health; when it gives up (the fourth death within 5 minutes), the server
// says why in one error line and stops with exit code 69 instead of serving without a chain.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, removeDir, tempDir } from './harness';
import { type Child, spawnServer } from './process';
import { anvilsOf, until } from './wallet-helpers';

describe('an anvil killed under a running server', () => {
  const dataDir = tempDir('presence-devnetsup-');
  let child: Child | null = null;
  afterAll(async () => {
    if (child && child.proc.exitCode === null) {
      child.proc.kill('SIGKILL');
      await child.exited;
    }
    removeDir(dataDir);
  });

  /** The one anvil running for the data directory (a restart runs a new one). */
  const theAnvil = () => {
    const found = anvilsOf(dataDir);
    if (found.length !== 1) throw new Error(`expected one anvil, found ${found.length}`);
    return found[0] as { pid: number; rpcUrl: string };
  };
  const restarted = /devnet: anvil exited on its own \(signal SIGKILL\); restarted from its saved state in \d+ ms/g;
  const restarts = () => ((child as Child).stdout().match(restarted) ?? []).length;
  /** SIGKILLs the running anvil and waits for the devnet to have restarted it (its log line: the log is buffered, so soon after). */
  async function killAndWaitForAnother() {
    const before = theAnvil();
    const count = restarts();
    process.kill(before.pid, 'SIGKILL');
    await until(() => restarts() === count + 1, 20_000, 'the restart of anvil');
    return before;
  }
  const health = async () => (await call((child as Child).url, 'GET', '/v1/health')).json as { ok: boolean; chain: unknown };

  it('comes back on the same URL from its saved state, and /v1/health shows the chain again', async () => {
    child = await spawnServer({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0' });
    expect((await health()).chain).not.toBeNull();
    // Restarts load the saved state: wait for anvil's first whole dump (every 5 s).
    const statePath = path.join(dataDir, 'devnet', 'state.json');
    const dumped = () => {
      try {
        return Boolean(JSON.parse(readFileSync(statePath, 'utf8')));
      } catch {
        return false;
      }
    };
    await until(dumped, 15_000, "anvil's first state dump");

    const killed = await killAndWaitForAnother();
    expect(theAnvil().rpcUrl).toBe(killed.rpcUrl);
    await until(async () => (await health()).chain !== null, 20_000, 'the chain back in /v1/health');
    expect(child.proc.exitCode).toBeNull();
  }, 60_000);

  it('stops the server with exit code 69 and one error line once the devnet gives up', async () => {
    const c = child as Child;
    // Two more restarts make three within 5 minutes; the next death is given up on.
    await killAndWaitForAnother();
    await killAndWaitForAnother();
    process.kill(theAnvil().pid, 'SIGKILL');
    expect(await c.exited).toBe(69);
    const errors = c
      .stdout()
      .split('\n')
      .filter((l) => l.includes('"level":50'));
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0] as string)).toMatchObject({
      msg: expect.stringMatching(/^the embedded devnet is gone: anvil exited on its own \(signal SIGKILL\), after 3 restarts within 300 s/),
      devnet: expect.stringContaining('not restarting it again'),
    });
    expect(c.stdout()).toContain('stopped (exit code 69)');
    expect(anvilsOf(dataDir)).toEqual([]);
  }, 60_000);
});
