// The face of session/: what the layers above may use, the session model and the store's
// interface included. How the store is kept (the file store, its lock, journal and atomic writes)
// is private to session/; only the Context opens it (scripts/layers.mjs, FACES).
export * from './ids.js';
export * from './lineage.js';
export * from './model.js';
export * from './paths.js';
export * from './policy-cache.js';
export * from './random-hex.js';
export * from './store.js';
export * from './key-index.js';
export * from './target.js';
export * from './search-index/record.js';
export * from './search-index/search-index.js';
export * from './search-index/stats.js';
