import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two shared cores: each end-to-end file starts a real server and its devnet; one at a time.
    fileParallelism: false,
  },
});
