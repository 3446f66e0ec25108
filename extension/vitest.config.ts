import { defineConfig } from 'vitest/config';

// Two shared cores: every file runs alone (fileParallelism off), and each project starts at
// most one real server and one browser.
export default defineConfig({
  test: {
    fileParallelism: false,
    projects: [
      {
        test: {
          name: 'components',
          include: ['test/components/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          globalSetup: ['test/helpers/global-server.ts'],
          setupFiles: ['test/helpers/setup-dom.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
