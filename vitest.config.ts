import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous on purpose: no test may depend on the machine's speed (the simulator's hold
    // decides what "still running" means), so a limit only guards against a hang, and a busy
    // machine must not turn slowness into failures.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // One worker per core: the in-process end-to-end tests are CPU-bound, and the process tests
    // spawn children of their own.
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
  },
});
