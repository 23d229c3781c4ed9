// The names of the figures that docs/performance.md cites, from the figures that print them
// (test/docs/performance-page.test.ts checks the page against this list, without a bench run).
import { CONTINUE_NAME } from './continue-memory.mjs';
import { LISTING_NAMES } from './listing.mjs';
import { MEMORY_NAMES } from './memory.mjs';
import { ONE_SHOT_NAME } from './one-shot.mjs';
import { STARTUP_NAMES } from './startup.mjs';
import { TRICK_NAMES } from './tricks.mjs';

export const FIGURE_NAMES = [
  ...STARTUP_NAMES,
  ...Object.values(TRICK_NAMES),
  ONE_SHOT_NAME,
  ...LISTING_NAMES,
  ...MEMORY_NAMES,
  CONTINUE_NAME,
];
