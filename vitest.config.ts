import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // End-to-end tests spawn real processes; two cores do not take more without starving timers.
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
  },
});
