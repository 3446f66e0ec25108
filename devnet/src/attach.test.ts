// The file deployment book of a lone server attached to a shared devnet: the first attach on a
// fresh data directory records the deployment even though devnet/ does not exist there yet.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileDeploymentBook } from './attach';
import type { Deployment } from './deployment';

let dir = '';
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const deployment = { chain: { id: 31337, name: 'devnet' } } as unknown as Deployment;

describe('fileDeploymentBook', () => {
  it('records into a directory that does not exist yet, made private (0700)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'presence-book-'));
    const path = join(dir, 'devnet', 'attached-deployment.json');
    await fileDeploymentBook(path).exclusive('http://127.0.0.1:8545', async (recorded) => {
      expect(recorded).toBeNull();
      return deployment;
    });
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(deployment);
    expect((await stat(join(dir, 'devnet'))).mode & 0o777).toBe(0o700);
  });
});
