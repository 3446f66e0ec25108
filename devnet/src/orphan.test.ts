// No anvil outlives its parent: kill the Node process that owns a devnet without letting it
// clean up, and anvil (and its sh wrapper) must be gone within a few seconds.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = join(here, '..');
const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** Alive and not a zombie (an exited child nobody reaped yet counts as gone). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** pids of live processes whose command line mentions `needle`. */
function processesMentioning(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes(needle) && running(Number(entry))) found.push(Number(entry));
    } catch {}
  }
  return found;
}

async function until(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (predicate()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return predicate();
}

async function startChild(dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'fixtures', 'devnet-child.ts'), dataDir], {
    cwd: packageDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  const info = await new Promise<{ pid: number; rpcUrl: string }>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`child exited ${code}: ${stderr}`)));
  });
  return { child, ...info };
}

describe.skipIf(process.platform !== 'linux')('devnet process ownership', () => {
  for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
    it(`leaves no anvil behind when its parent gets ${signal}`, async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'presence-orphan-'));
      dirs.push(dataDir);
      const { child, pid } = await startChild(dataDir);
      expect(running(pid)).toBe(true);
      expect(processesMentioning(dataDir).length).toBeGreaterThanOrEqual(2); // wrapper + anvil

      child.kill(signal);
      expect(await until(() => !running(pid), 5000)).toBe(true);
      expect(await until(() => processesMentioning(dataDir).length === 0, 2000)).toBe(true);
      // anvil was stopped with SIGTERM, so it had the chance to dump its state.
      expect(existsSync(join(dataDir, 'devnet', 'state.json'))).toBe(true);
    }, 30_000);
  }
});
