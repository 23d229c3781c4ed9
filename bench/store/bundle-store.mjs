// The real session store (src/session/file-store.ts) bundled into a temp .mjs, so the figures
// and their worker processes write sessions and the index journal exactly as nsed does; with it
// the verdict nsed records for every answer (store-entry.mjs).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleModule } from '../../scripts/build.mjs';

export async function bundleStore(dir) {
  return bundleModule('bench/store/store-entry.mjs', path.join(dir, 'store.mjs'));
}

/** Imports a bundle made by bundleStore into this process. */
export async function loadStore(bundle) {
  return import(pathToFileURL(bundle).href);
}
