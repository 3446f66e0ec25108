// The bots as a deployment runs them: src/main.ts bundled to dist/main.js for plain Node (no
// tsx on a server; deploy/systemd/presence-bots.service). The workspace packages it uses
// (@presence/client, @presence/core's file helpers) are bundled in, since in this repository
// their exports point at TypeScript source; grammY, discord.js and postgres stay imports.
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/main.ts'],
  format: 'esm',
  platform: 'node',
  target: 'node20',
  noExternal: [/^@presence\//],
  clean: true,
  banner: { js: '#!/usr/bin/env node' },
});
