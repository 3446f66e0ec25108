// Server start: time from spawning the process to its ready line, `npm start`'s command (the
// source through tsx) against `presence-server serve` (the built dist/, plain Node). Both on
// a chain this benchmark starts and passes as a real network, so the devnet's own start (the
// same for both) is left out; the first start of each only warms caches and is not counted.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDevnet } from '@presence/devnet';
import { fmt, percentile, type Row } from './stats';

// (Not from ../src/process.ts: that module registers vitest hooks, and this runs outside vitest.)
const serverDir = path.dirname(createRequire(import.meta.url).resolve('@presence/server/package.json'));
const serverMain = path.join(serverDir, 'src/main.ts');
const serverCli = path.join(serverDir, 'bin/presence-server.js');

const RUNS = 5;

async function timeToReady(command: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const [file, ...args] = command as [string, ...string[]];
  const proc = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr.on('data', (d) => {
    err += d;
  });
  const closed = new Promise((r) => proc.on('close', r));
  await new Promise<void>((resolve, reject) => {
    proc.stdout.on('data', (d) => {
      out += d;
      if (out.includes('Presence listening on')) resolve();
    });
    proc.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  const ms = performance.now() - started;
  proc.kill('SIGTERM');
  await closed;
  return ms;
}

export async function serveBenchmarks(rows: Row[]) {
  const work = mkdtempSync(path.join(tmpdir(), 'presence-bench-serve-'));
  const chain = await startDevnet({ dataDir: path.join(work, 'chain') });
  try {
    const tokenList = path.join(work, 'tokens.json');
    writeFileSync(tokenList, JSON.stringify(chain.deployment));
    const env: NodeJS.ProcessEnv = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PRESENCE_'))),
      PRESENCE_PORT: '0',
      PRESENCE_DATA_DIR: path.join(work, 'data'),
      PRESENCE_CHAIN: 'anvil',
      PRESENCE_RPC_URL: chain.rpcUrl,
      PRESENCE_TOKEN_LIST: tokenList,
      PRESENCE_LOG_LEVEL: 'warn',
    };
    const built = existsSync(path.join(serverDir, 'dist/cli.js'));
    const commands: [string, string[] | null][] = [
      ['server start to ready line: npm start (tsx, source) median ms', [process.execPath, '--import', 'tsx', serverMain]],
      [
        'server start to ready line: presence-server serve (dist, plain Node) median ms',
        built ? [process.execPath, serverCli, 'serve'] : null,
      ],
    ];
    for (const [benchmark, command] of commands) {
      if (!command) {
        rows.push({ benchmark, figure: 'n/a (npm run build first)', target: 'below npm start' });
        continue;
      }
      const times: number[] = [];
      for (let i = 0; i <= RUNS; i++) {
        const ms = await timeToReady(command, env);
        if (i > 0) times.push(ms);
      }
      rows.push({ benchmark, figure: fmt(percentile(times, 50), 0), target: 'below npm start' });
    }
  } finally {
    await chain.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
