// The embedded devnet's start (moved here from devnet/src/devnet.test.ts, which now checks only
// that a restart reuses the state): a cold start deploys the market and seeds the pools into a
// fresh data dir; a warm restart loads anvil's saved state and finds the deployment's code.
// Each round uses a fresh data dir; the figures are medians, as reported by `started.ms`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDevnet } from '@presence/devnet';
import { fmt, percentile, type Row } from './stats';

const ROUNDS = 3;

export async function devnetBenchmarks(rows: Row[]) {
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'presence-bench-devnet-'));
    try {
      const first = await startDevnet({ dataDir });
      cold.push(first.started.ms);
      await first.stop();
      const again = await startDevnet({ dataDir });
      if (!again.started.reused) throw new Error('the warm restart did not reuse the saved state');
      warm.push(again.started.ms);
      await again.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const coldMs = percentile(cold, 50);
  rows.push({ benchmark: 'devnet cold start (deploy + seed) median ms', figure: fmt(coldMs, 0), target: '' });
  rows.push({
    benchmark: 'devnet warm restart (saved state) median ms',
    figure: fmt(percentile(warm, 50), 0),
    target: `< 3000 and < cold (${fmt(coldMs, 0)})`,
  });
}
