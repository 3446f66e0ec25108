import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Each test spawns the bin (through tsx in the repo) several times; on two shared cores a
    // spawn can take seconds.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two shared cores: files start real servers and spawn the CLI; run them one at a time.
    fileParallelism: false,
  },
});
