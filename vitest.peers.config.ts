import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// Programs nobody here wrote, driving nsed as processes (test/peers/): each installs its own
// pinned packages from the registry on first run, so they stay out of `npm test`. The rest of
// the settings are the main suite's (mergeConfig would append to its `exclude`, not replace it).
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['test/peers/**/*.test.ts'], exclude: ['**/node_modules/**'] },
});
