// Bundles the CLI into dist/. Splitting keeps lazily imported modules (undici, ora, lowdb,
// the simulator) in their own chunks, so `nsed --version` loads almost nothing.
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  logLevel: 'warning',
  // undici and yargs' CommonJS helpers call require(); ESM bundles have none.
  banner: { js: "import { createRequire as __nsedCreateRequire } from 'node:module'; const require = __nsedCreateRequire(import.meta.url);" },
};

/** Builds into `outdir` (default dist/; the tests build a private copy so parallel runs never share one). */
export async function buildCli(outdir = `${root}dist`) {
  await rm(outdir, { recursive: true, force: true });
  await build({ ...common, entryPoints: { main: 'src/cli/main.ts' }, outdir, splitting: true, chunkNames: 'chunks/[name]-[hash]' });
}

/**
 * One source module (path from the repo root) bundled into a single .mjs file, for plain `node`
 * processes that need the real code: store workers in tests and benchmarks, the docs generator.
 */
export async function bundleModule(entry, outfile) {
  await build({ ...common, entryPoints: [entry], outfile });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildCli();
}
