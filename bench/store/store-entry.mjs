// What bundleStore bundles: the real session store (src/session/file-store.ts), the text it
// writes a record as (generated files are written in it), and the verdict nsed records at the end
// of every answer (src/council/verdict.ts), so generated sessions carry the verdict an answer of today's
// nsed carries.
export * from '../../src/session/file-store.js';
export { recordText } from '../../src/session/atomic-adapter.js';
export { deriveVerdict } from '../../src/council/verdict.js';
