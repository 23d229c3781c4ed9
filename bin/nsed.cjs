#!/usr/bin/env node
'use strict';
// CommonJS on purpose: an ES-module entry costs ~25 ms more to start (docs/performance.md), and
// `nsed --version` sits in shell loops. So do `nsed sessions ls`, `sessions show`, `--help` and a
// one-shot `ask`: their plain shapes run from dist/fast.cjs, dist/help.cjs and dist/ask.cjs,
// CommonJS files; everything else from the bundled ES module dist/main.js.
const args = process.argv.slice(2);
const compileCache = typeof require('node:module').enableCompileCache === 'function';
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  // Node >= 22.1 keeps the compiled bundle on disk between runs (docs/performance.md has the
  // figure); older Node lacks the function and starts as before. NODE_DISABLE_COMPILE_CACHE=1
  // turns it off.
  if (compileCache) require('node:module').enableCompileCache();
  // A cheap look at the words; the fast entry reads them exactly and declines what it does not run.
  const last = args[args.length - 1];
  const fast =
    last === '--help' || last === '-h'
      ? 'help.cjs'
      : args[0] === 'sessions'
        ? 'fast.cjs'
        : args[0] === 'ask'
          ? 'ask.cjs'
          : undefined;
  if (fast === undefined || !runFast(fast)) runMain();
}

function runFast(file) {
  let entry;
  try {
    entry = compileCache ? require(`../dist/${file}`) : loadWithCodeCache(`${__dirname}/../dist/${file}`);
  } catch (err) {
    // A checkout before its first build has no dist/ at all: runMain builds it.
    const missing = err?.code === 'MODULE_NOT_FOUND' || err?.code === 'ENOENT';
    if (missing && !require('node:fs').existsSync(`${__dirname}/../dist/${file}`)) return false;
    throw err;
  }
  return entry.run(args);
}

/**
 * Node < 22.1 has no compile cache, so the build leaves V8's code cache of each fast entry beside
 * it (scripts/code-cache.cjs), named by the build id on the bundle's first line: a cache made from
 * other bytes is never used. The file is loaded as require would (the same wrapper), with the
 * cache; V8 itself rejects one made by another Node or under other flags, and compiles as usual.
 */
function loadWithCodeCache(file) {
  const fs = require('node:fs');
  // The entries are ASCII (test/e2e/startup-cost.test.ts): read as latin1, the text is the same,
  // without the copy and check a UTF-8 read makes (~190 fewer page faults for dist/ask.cjs).
  const source = fs.readFileSync(file, 'latin1');
  const id = /^\/\/ nsed-build ([0-9a-f]+)\n/.exec(source)?.[1];
  let cachedData;
  try {
    if (id !== undefined) cachedData = fs.readFileSync(file.replace(/\.cjs$/, `.${id}.v8cache`));
  } catch {
    // No cache (a build without one): compile as usual.
  }
  if (cachedData === undefined) return require(file);
  const Module = require('node:module');
  // The file's text is its own module wrapper (scripts/build.mjs, ENTRY_WRAPPER): compiled as it
  // is, V8 takes the string read without copying it first.
  const script = new (require('node:vm').Script)(source, { filename: file, cachedData });
  const mod = { exports: {} };
  const dir = require('node:path').dirname(file);
  script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(file), mod, file, dir);
  return mod.exports;
}

function runMain() {
  import('../dist/main.js').catch(async (err) => {
    // The package has no install scripts (a global install would have to allow them), so a fresh
    // clone has no dist/ after `npm ci`: build it once, on first run, from the checkout's source.
    // A packed tarball always carries dist/ (built by `prepack`) and no scripts/ folder.
    const fs = require('node:fs');
    const path = require('node:path');
    const build = path.join(__dirname, '..', 'scripts', 'build.mjs');
    if (
      err?.code !== 'ERR_MODULE_NOT_FOUND' ||
      fs.existsSync(path.join(__dirname, '..', 'dist', 'main.js')) ||
      !fs.existsSync(build)
    )
      throw err;
    process.stderr.write('nsed: building dist/ from this checkout (once; npm run build rebuilds it)\n');
    await (await import(require('node:url').pathToFileURL(build).href)).buildCli();
    await import('../dist/main.js');
  });
}
