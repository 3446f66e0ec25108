// The published server: src/cli/main.ts (the `presence-server` bin: `serve` and the operator
// commands) and src/index.ts bundled for plain Node, no tsx at run time. Dependencies stay
// imports: @presence/core and @presence/protocol are packages of their own, and
// @presence/devnet (optional) is only ever imported dynamically, by src/load-devnet.ts.
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { cli: 'src/cli/main.ts', index: 'src/index.ts' },
  format: 'esm',
  platform: 'node',
  target: 'node20',
  splitting: true,
  // tsup leaves dependencies external but not optionalDependencies: the devnet must stay a
  // separate, optional package.
  external: ['@presence/devnet'],
  clean: true,
  // For cli.js, the published bin (npm links it as is); harmless on the other files.
  banner: { js: '#!/usr/bin/env node' },
});
