// The published bin: src/main.ts bundled to dist/main.js for plain Node (no tsx at run time).
// Dependencies (@presence/client, commander …) stay imports; `run` is its own chunk, so
// `presence --version` loads only main.
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/main.ts'],
  format: 'esm',
  platform: 'node',
  target: 'node20',
  splitting: true,
  clean: true,
  banner: { js: '#!/usr/bin/env node' },
});
