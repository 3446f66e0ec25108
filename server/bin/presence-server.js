#!/usr/bin/env node
// The repository's `presence-server` (the published package's bin is dist/cli.js itself).
// `serve` runs the built server (server/dist/, from `npm run build`) with plain Node, as a
// deployment does: in a child process with the `presence-built` export condition, under which
// the workspace packages resolve to their dist/ instead of their TypeScript source. Every other
// command runs the TypeScript source through tsx, so it needs no build.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

if (process.argv[2] === 'serve') {
  const built = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
  if (!existsSync(built)) {
    process.stderr.write(
      'presence: `presence-server serve` runs the built server: run `npm run build` first (or `npm start` to run from source)\n',
    );
    process.exit(2);
  }
  const child = spawn(process.execPath, ['--conditions=presence-built', built, ...process.argv.slice(2)], { stdio: 'inherit' });
  // The child handles the signals (a clean shutdown); this process only passes them on and
  // leaves with the child's code.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : 15) : 1)));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
