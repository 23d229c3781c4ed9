// What bundleStore bundles: the real session store (src/session/file-store.ts) and the verdict
// nsed records at the end of every answer (src/verdict.ts), so generated sessions carry the
// verdict an answer of today's nsed carries.
export * from '../../src/session/file-store.js';
export { deriveVerdict } from '../../src/verdict.js';
