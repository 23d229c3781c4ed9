// Bundles the CLI into dist/. Splitting keeps lazily imported modules (undici, ora, lowdb,
// the simulator) in their own chunks, so `nsed --version` loads almost nothing.
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * string-width builds an Intl.Segmenter and an RGI_Emoji regular expression when its module is
 * evaluated: 90-290 ms on a loaded machine, paid by every run because yargs imports it at the
 * top, though only help text measures widths (bench/RESULTS.md). Each import of it gets a stand-in
 * that loads the same real module, of the same version, on the first call.
 */
const lazyStringWidth = {
  name: 'lazy-string-width',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, async (args) => {
      if (args.pluginData?.real) return undefined;
      const real = await b.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: { real: true },
      });
      if (real.errors.length > 0) return { errors: real.errors };
      return { path: real.path, namespace: 'lazy-string-width' };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-string-width' }, (args) => ({
      // esbuild turns a require() of an ES module into a wrapper that evaluates it on first call.
      // Printable ASCII is as wide as it is long in every string-width version (its own fast
      // path in 8.x), so help text in English never builds the segmenter at all.
      contents: `let real;
export default function stringWidth(input, options) {
  if (typeof input === 'string' && /^[\\u0020-\\u007E]*$/.test(input)) return input.length;
  real ??= require(${JSON.stringify(args.path)}).default;
  return real(input, options);
}`,
      loader: 'js',
      resolveDir: path.dirname(args.path),
    }));
  },
};

/** src/ gets undici's dispatchers and request API without the rest of the package (see the file). */
const undiciSlim = {
  name: 'undici-slim',
  setup(b) {
    b.onResolve({ filter: /^undici$/ }, (args) =>
      args.importer.startsWith(path.join(root, 'src'))
        ? { path: path.join(root, 'scripts', 'undici-slim.cjs') }
        : undefined,
    );
    // HTTP/2 is never negotiated (no `allowH2`), so its client and node:http2 stay out.
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}undici${path.sep}lib${path.sep}dispatcher${path.sep}`)
        ? { path: path.join(root, 'scripts', 'undici-no-h2.cjs') }
        : undefined,
    );
  },
};

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  logLevel: 'warning',
  plugins: [lazyStringWidth, undiciSlim],
  // undici and yargs' CommonJS helpers call require(); ESM bundles have none.
  banner: {
    js: "import { createRequire as __nsedCreateRequire } from 'node:module'; const require = __nsedCreateRequire(import.meta.url);",
  },
};

/** Builds into `outdir` (default dist/; the tests build a private copy so parallel runs never share one). */
export async function buildCli(outdir = `${root}dist`) {
  await rm(outdir, { recursive: true, force: true });
  await build({
    ...common,
    entryPoints: { main: 'src/cli/main.ts' },
    outdir,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
  });
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
