// Vitest settings for the packages whose test files start anvil devnets (core, devnet),
// decided in one place so both packages keep to the same budget: a minute per test and hook,
// and two files at a time, one per core of the shared machine.
import { defineConfig } from 'vitest/config';

export const anvilTestConfig = defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
  },
});
