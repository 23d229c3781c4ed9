// The real session store (src/session/file-store.ts) bundled into a temp .mjs, so the figures
// and their worker processes write sessions and the index journal exactly as nsed does.
import { build } from 'esbuild';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../lib/proc.mjs';

export async function bundleStore(dir) {
  const outfile = path.join(dir, 'store.mjs');
  await build({
    absWorkingDir: ROOT,
    entryPoints: ['src/session/file-store.ts'],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    banner: { js: "import { createRequire as __benchRequire } from 'node:module'; const require = __benchRequire(import.meta.url);" },
  });
  return outfile;
}

/** Imports a bundle made by bundleStore into this process. */
export async function loadStore(bundle) {
  return import(pathToFileURL(bundle).href);
}
