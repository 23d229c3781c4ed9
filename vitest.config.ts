import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The peers (promptfoo, the MCP Inspector, the conformance suite) install about 2 GB from the
    // registry on a fresh machine: they run under `npm run test:peers` (vitest.peers.config.ts),
    // which .ci/run calls, so `npm test` needs nothing beyond `npm ci`.
    exclude: ['test/peers/**', '**/node_modules/**'],
    // Generous on purpose: no test may depend on the machine's speed (the simulator's hold
    // decides what "still running" means), so a limit only guards against a hang, and a busy
    // machine must not turn slowness into failures.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // One worker per core: the in-process end-to-end tests are CPU-bound, and the process tests
    // spawn children of their own.
    maxWorkers: 2,
    // One module graph per worker, not per file: each file no longer re-imports the CLI, the
    // simulator and their dependencies (about 1 s of CPU a file). Safe because no test changes
    // process-wide state it does not restore (process.umask is put back in a finally; nothing
    // stubs globals or mocks modules) and src/ keeps no module state a test depends on.
    // Measured on test/e2e + test/everyday under load 7: 76 s wall, 98 s CPU isolated; 54 s, 59 s not.
    isolate: false,
    globalSetup: ['test/global-setup.ts'],
  },
});
