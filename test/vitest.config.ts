import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: end-to-end files each start servers (and devnets); run them one at a time.
    fileParallelism: false,
  },
});
