import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // After each file: what its tests started and left for the file (a PostgreSQL cluster).
    setupFiles: ['./vitest.setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: end-to-end files each start servers (and devnets); run them one at a time.
    fileParallelism: false,
  },
});
