// Bundles the CLI into dist/. Splitting keeps lazily imported modules (undici, ora, lowdb,
// the simulator) in their own chunks, so `nsed --version` loads almost nothing.
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Builds into `outdir` (default dist/; the tests build a private copy so parallel runs never share one). */
export async function buildCli(outdir = `${root}dist`) {
  await rm(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: { main: 'src/cli/main.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: false,
    logLevel: 'warning',
    chunkNames: 'chunks/[name]-[hash]',
    // undici and yargs' CommonJS helpers call require(); ESM bundles have none.
    banner: { js: "import { createRequire as __nsedCreateRequire } from 'node:module'; const require = __nsedCreateRequire(import.meta.url);" },
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildCli();
}
