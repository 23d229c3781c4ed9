// Bundles the CLI into dist/. Splitting keeps lazily imported modules (undici, ora, lowdb,
// the simulator) in their own chunks, so `nsed --version` loads almost nothing.
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * string-width builds an Intl.Segmenter and an RGI_Emoji regular expression when its module is
 * evaluated: 90-290 ms on a loaded machine, paid by every run because yargs imports it at the
 * top, though only help text measures widths. Each import of it gets a stand-in
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

/**
 * src/ gets undici's dispatchers and request API without the rest of the package (see the file).
 * `without` (a bench variant, see TRICKS) leaves out the stand-ins.
 */
const undiciSlim = (without = new Set()) => ({
  name: 'undici-slim',
  setup(b) {
    b.onResolve({ filter: /^undici$/ }, (args) =>
      args.importer.startsWith(path.join(root, 'src'))
        ? { path: path.join(root, 'scripts', 'undici-slim.cjs') }
        : undefined,
    );
    if (!without.has('stand-ins')) undiciStandIns(b);
  },
});

/** undici's modules that nsed's requests never run, each replaced by a stand-in (scripts/undici-*.cjs). */
function undiciStandIns(b) {
  // Two Node modules undici loads at start-up and nsed's requests never need (see each file).
  b.onResolve({ filter: /^node:(http|assert)$/ }, (args) =>
    args.importer.includes(`${path.sep}node_modules${path.sep}undici${path.sep}`)
      ? { path: path.join(root, 'scripts', `undici-${args.path.replace(':', '-')}.cjs`) }
      : undefined,
  );
  // HTTP/2 is never negotiated (no `allowH2`), so its client and node:http2 stay out; nor is a
  // FormData body ever sent, so neither is fetch's body code.
  const inDispatchers = (importer) =>
    importer.includes(`${path.sep}undici${path.sep}lib${path.sep}dispatcher${path.sep}`);
  b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
    inDispatchers(args.importer) ? { path: path.join(root, 'scripts', 'undici-no-h2.cjs') } : undefined,
  );
  b.onResolve({ filter: /^\.\.\/web\/fetch\/body\.js$/ }, (args) =>
    inDispatchers(args.importer) ? { path: path.join(root, 'scripts', 'undici-no-formdata.cjs') } : undefined,
  );
}

/**
 * dist/fast.cjs runs only `sessions ls` and `sessions show`, which never open a connection;
 * one bundle has no lazy chunks, so the Context's `import('./connection.js')` would carry undici
 * and the simulator (800 KB) into it. The fast bundle gets a connect() that says so instead.
 */
const noConnection = {
  name: 'no-connection',
  setup(b) {
    b.onResolve({ filter: /^\.\/connection\.js$/ }, (args) =>
      args.importer === path.join(root, 'src', 'run', 'context.ts')
        ? { path: 'connection', namespace: 'no-connection' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'no-connection' }, () => ({
      contents: `export async function connect() {
  throw new Error('dist/fast.cjs has no connection; bin/nsed.cjs sends commands that connect to dist/ask.cjs or dist/main.js');
}`,
      loader: 'js',
    }));
  },
};

/**
 * dist/ask.cjs runs only the `ask` shapes the prescan reads, and -f, --schema and --template are
 * not among them (they go to dist/main.js): the JSON Schema validator, the glob expander and
 * the Markdown renderer of the HTML report (`--html`; some 400 KB in all) would only be parsed there, never
 * run. The bundle gets stand-ins that say so.
 */
const noInputLibraries = {
  name: 'no-input-libraries',
  setup(b) {
    b.onResolve({ filter: /^(ajv\/dist\/2020\.js|tinyglobby|markdown-it)$/ }, (args) => ({
      path: args.path,
      namespace: 'no-input-library',
    }));
    b.onLoad({ filter: /.*/, namespace: 'no-input-library' }, (args) => ({
      // A function, so that `new` on the stand-in (markdown-it, Ajv) says the same as a call.
      contents: `function missing() { throw new Error('dist/ask.cjs has no ${args.path}; bin/nsed.cjs sends -f, --schema, --template and --html to dist/main.js'); }
missing.default = missing;
export default missing;
export const glob = missing;`,
      loader: 'js',
    }));
  },
};

/**
 * In dist/fast.cjs and dist/ask.cjs, the Node modules that cost an empty `sessions ls` more than
 * `node -e 0` pays in all (node:fs/promises brings readline and the file watchers), and those a
 * one-shot `ask` loads only for a tool call or a question to the person (node:child_process,
 * node:readline; together ~3 ms of it): each import gets functions of
 * the same names that require the real module on the first call. Only functions are offered, so
 * an import of anything else fails the build.
 */
const LAZY_BUILTINS = ['fs/promises', 'timers/promises', 'os', 'child_process', 'readline'];
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    const filter = new RegExp(`^(node:)?(${LAZY_BUILTINS.join('|')})$`);
    b.onResolve({ filter }, (args) =>
      args.namespace === 'lazy-builtin'
        ? { path: args.path, external: true }
        : { path: args.path.replace(/^node:/, ''), namespace: 'lazy-builtin' },
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => {
      if (!LAZY_BUILTINS.includes(args.path)) return undefined;
      const real = process.getBuiltinModule(`node:${args.path}`);
      const names = Object.keys(real).filter((k) => k !== 'default' && typeof real[k] === 'function');
      return {
        contents: [
          `const real = () => require(${JSON.stringify(`node:${args.path}`)});`,
          ...names.map((n) => `export function ${n}(...a) { return real().${n}(...a); }`),
          'export default new Proxy({}, { get: (_, k) => real()[k] });',
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};

/**
 * The tricks a bench build can leave out, each by name: bench/figures/tricks.mjs builds the CLI
 * without one into its own directory and times it against the build with all of them
 * (docs/performance.md). The shipped build leaves out none; a variant changes no source file, it
 * only bundles them differently, and every text it replaces must be there exactly once, so a
 * variant that no longer leaves its trick out fails to build instead of timing the same code.
 * - `stand-ins`: undici's stand-ins (above), string-width and the Node modules loaded on first
 *   call, and the process streams built on first use: all real, and built or loaded at once.
 * - `wasm-tiering`: V8 compiles and tiers WebAssembly up as it does by default.
 * - `chunk-template`: every chunk of a compat stream is parsed in full.
 * - `read-batches`: the events of a network read reach the turn one await at a time.
 */
export const TRICKS = {
  'stand-ins': {
    'src/cli/process-context.ts': [
      [
        "return isTTY('stdout') ? processStreams.stdout : fdStdout(1, () => processStreams.stdout);",
        'return processStreams.stdout;',
      ],
      [
        "stdin ??= nullDevice(0) ? process.getBuiltinModule('node:stream').Readable.from([]) : process.stdin;",
        'stdin ??= process.stdin;',
      ],
      [
        "if (process.platform === 'win32') return process[which].isTTY === true;",
        'return process[which].isTTY === true;',
      ],
      ['export const processStreams = {', 'void [process.stdout, process.stderr];\nexport const processStreams = {'],
    ],
  },
  'wasm-tiering': {
    'src/cli/wasm-tiering.ts': [
      ["  setFlagsFromString('--liftoff-only');\n  setFlagsFromString('--no-wasm-lazy-compilation');", ''],
    ],
  },
  'chunk-template': {
    'src/api/stream-processor.ts': [['&& tries < MAX_TEMPLATE_TRIES', '&& false']],
  },
  'read-batches': {
    'src/api/event-stream.ts': [
      [
        '      return batches;',
        '      return (async function* () { for await (const b of batches) for (const e of b) yield [e]; })();',
      ],
    ],
  },
};

/** The source files of the tricks in `without`, each with its replacements applied (see TRICKS). */
const leaveOut = (without) => ({
  name: 'leave-out-tricks',
  setup(b) {
    const files = new Map();
    for (const trick of without) {
      if (!(trick in TRICKS)) throw new Error(`no trick named ${trick}; choose from ${Object.keys(TRICKS).join(', ')}`);
      for (const [file, swaps] of Object.entries(TRICKS[trick]))
        files.set(path.join(root, file), [...(files.get(path.join(root, file)) ?? []), ...swaps]);
    }
    b.onLoad({ filter: /\.(ts|cjs)$/ }, async (args) => {
      const swaps = files.get(args.path);
      if (swaps === undefined) return undefined;
      let source = await readFile(args.path, 'utf8');
      for (const [from, to] of swaps) {
        if (source.split(from).length !== 2) throw new Error(`${args.path} no longer has \`${from}\` once`);
        source = source.replace(from, () => to);
      }
      return { contents: source, loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
    });
  },
});

/** The options every bundle shares; `without` names tricks to leave out (TRICKS), for the bench. */
const options = (without = new Set()) => ({
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  logLevel: 'warning',
  plugins: [
    ...(without.has('stand-ins') ? [] : [lazyStringWidth]),
    undiciSlim(without),
    ...(without.size === 0 ? [] : [leaveOut(without)]),
  ],
  // undici and yargs' CommonJS helpers call require(); ESM bundles have none.
  banner: {
    js: "import { createRequire as __nsedCreateRequire } from 'node:module'; const require = __nsedCreateRequire(import.meta.url);",
  },
});

/**
 * Builds into `outdir` (default dist/; the tests build a private copy so parallel runs never share
 * one). `without` names tricks to leave out (TRICKS): only the bench asks for that, into its own
 * directory.
 */
export async function buildCli(outdir = `${root}dist`, { without = [] } = {}) {
  const common = options(new Set(without));
  await rm(outdir, { recursive: true, force: true });
  await Promise.all([
    build({
      ...common,
      // dist/promptfoo.js: the promptfoo provider (provider/promptfoo.mjs loads it), sharing the chunks.
      entryPoints: { main: 'src/cli/main.ts', promptfoo: 'src/cli/promptfoo.ts' },
      outdir,
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
    }),
    buildFast(outdir, common, new Set(without)),
  ]);
}

/**
 * The fast entries carry CommonJS's module wrapper in their own text. bin/nsed.cjs compiles such a
 * file with V8's code cache as a script (Node < 22.1) and calls the function it evaluates to; had
 * it wrapped the text itself, as `require` does (`Module.wrap`), V8 would copy the joined string
 * whole before it looks the cache up: for dist/ask.cjs 0.9 MB of fresh memory, ~230 page faults
 * of ~19 µs each on a machine like the bench host. Under `require` (Node >= 22.1,
 * or without a cache) the function applies itself to the module's own arguments.
 */
const ENTRY_WRAPPER = {
  open: "(typeof arguments === 'object' ? (f) => f.apply(this, arguments) : (f) => f)(function (exports, require, module, __filename, __dirname) {",
  close: '})',
};

/**
 * dist/fast.cjs (plain `sessions ls` and `sessions show`, src/cli/fast.ts), dist/help.cjs
 * (`--help`, src/cli/fast-help.ts) and dist/ask.cjs (plain `ask`, src/cli/fast-ask.ts), the
 * entries bin/nsed.cjs requires before it would import dist/main.js. Each is one CommonJS file
 * that Node loads without the ES-module loader (resolving, linking and compiling the chunks of
 * dist/main.js cost an empty `sessions ls` more than the listing did, and an ask ~35 ms). The
 * listing and help entries are kept small because compiling them is most of what is left. The
 * help texts are rendered here, by yargs from the command definitions.
 */
async function buildFast(outdir, common, without) {
  const buildId = randomBytes(8).toString('hex');
  const lazy = without.has('stand-ins') ? [] : [lazyBuiltins];
  const cjs = {
    ...common,
    format: 'cjs',
    outdir,
    outExtension: { '.js': '.cjs' },
    minifyWhitespace: true,
    minifySyntax: true,
    // Names the build, so bin/nsed.cjs hands V8 only a code cache made from this very file.
    // Then the module wrapper, written into the file: see ENTRY_WRAPPER.
    banner: { js: `// nsed-build ${buildId}\n${ENTRY_WRAPPER.open}` },
    footer: { js: ENTRY_WRAPPER.close },
    // A module that names itself with import.meta.url (createRequire) gets this file's URL.
    define: { 'import.meta.url': '__nsedFileUrl' },
    inject: [path.join(root, 'scripts', 'cjs-file-url.mjs')],
    plugins: [...common.plugins, noConnection, ...lazy],
  };
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'nsed-help-'));
  try {
    const renderer = await bundleModule('src/cli/help-texts.ts', path.join(tmp, 'help-texts.mjs'));
    const texts = await (await import(pathToFileURL(renderer).href)).renderHelpTexts();
    await Promise.all([
      build({ ...cjs, entryPoints: { fast: 'src/cli/fast.ts' } }),
      // The one-shot ask connects: the real connection; the Node modules a plain turn never calls
      // are loaded on first use, as in the listing's.
      build({
        ...cjs,
        plugins: [...common.plugins, noInputLibraries, ...lazy],
        entryPoints: { ask: 'src/cli/fast-ask.ts' },
      }),
      build({
        ...cjs,
        entryPoints: { help: 'src/cli/fast-help.ts' },
        define: { ...cjs.define, NSED_STORED_HELP: JSON.stringify(JSON.stringify(texts)) },
      }),
    ]);
    const home = path.join(tmp, 'home');
    await Promise.all([
      codeCache(path.join(outdir, 'fast.cjs'), path.join(outdir, `fast.${buildId}.v8cache`), ['sessions', 'ls'], home),
      codeCache(path.join(outdir, 'help.cjs'), path.join(outdir, `help.${buildId}.v8cache`), ['--help'], home),
      codeCache(path.join(outdir, 'ask.cjs'), path.join(outdir, `ask.${buildId}.v8cache`), ASK_CACHE_RUNS, home),
    ]);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * The asks whose compiled code dist/ask.cjs's cache holds: one per output mode, against the
 * built-in simulator, side by side in one process (scripts/code-cache.cjs keeps the run from
 * setting the V8 flag an ask sets, so V8 takes the cache). A cache of the loaded, unrun bundle
 * left each function a one-shot runs to be compiled on first use, also on the way from the
 * first event to its first write.
 */
const ASK_CACHE_RUNS = ['final', 'text', 'ndjson'].flatMap((mode, i) => [
  ...(i === 0 ? [] : ['+']),
  ...['ask', '--sim', '-q', '-o', mode, 'What is the answer?'],
]);

/**
 * V8's code cache of `bundle` after one run of `words` (scripts/code-cache.cjs), for Node < 22.1:
 * a cache of the functions an empty `sessions ls` compiles took 9 of the 12 ms its compiling cost
 * (docs/performance.md). Made by a plain `node`, away from the user's store and config.
 */
function codeCache(bundle, cache, words, home) {
  // The asks of ASK_CACHE_RUNS need no slow simulator: its phases take 5 ms instead of 120.
  // A build inside a CI step must not report as that step: without the runner's variables the
  // warm-up asks write no step outputs, summary or annotations (a step that builds and then fails
  // would otherwise read `exit-code=0`), and no NSED_* setting of the user's reaches them.
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(GITHUB_|RUNNER_|NSED_)/.test(k))),
    NSED_HOME: home,
    NSED_CONFIG: path.join(home, 'no-config.json'),
    NSED_SIM_ROUND_MS: '5',
  };
  delete env.NODE_OPTIONS;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'scripts', 'code-cache.cjs'), bundle, cache, ...words], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`code cache of ${bundle}: exit ${code}`))));
  });
}

/**
 * One source module (path from the repo root) bundled into a single .mjs file, for plain `node`
 * processes that need the real code: store workers in tests and benchmarks, the docs generator.
 */
export async function bundleModule(entry, outfile) {
  await build({ ...options(), entryPoints: [entry], outfile });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildCli();
}
