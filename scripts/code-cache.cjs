'use strict';
// `node scripts/code-cache.cjs BUNDLE CACHE [WORDS…]`: runs a fast entry (dist/fast.cjs,
// dist/help.cjs or dist/ask.cjs) for WORDS, loaded as bin/nsed.cjs loads it, and writes V8's code
// cache of what those runs compiled to CACHE. A lone `+` among the WORDS starts another run, made
// alongside the first in this process (the ask's output modes each compile their own renderer).
// scripts/build.mjs runs it in a plain `node` (no flags: V8 rejects a cache made under other
// flags), bin/nsed.cjs hands the cache to V8 on Node < 22.1, which has no module.enableCompileCache
// (docs/performance.md has what it saves).
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const v8 = require('node:v8');
const vm = require('node:vm');

// An ask sets --liftoff-only when it runs (src/cli/wasm-tiering.ts), and V8 rejects a cache made
// after that in every process that starts without it. Here the run leaves V8's flags as every
// process starts with them, so the cache can hold what a whole ask compiled, not only its loading.
v8.setFlagsFromString = () => {};

const [bundle, cache, ...words] = process.argv.slice(2);
// As bin/nsed.cjs reads and compiles it: the file's text, its own module wrapper (scripts/build.mjs).
const script = new vm.Script(fs.readFileSync(bundle, 'latin1'), { filename: bundle });
const mod = { exports: {} };
script
  .runInThisContext()
  .call(mod.exports, mod.exports, Module.createRequire(bundle), mod, bundle, path.dirname(bundle));
process.on('exit', () => fs.writeFileSync(cache, script.createCachedData()));
const runs = [[]];
for (const w of words) {
  if (w === '+') runs.push([]);
  else runs[runs.length - 1].push(w);
}
for (const run of runs)
  if (run.length > 0 && !mod.exports.run(run)) throw new Error(`${bundle} declined ${run.join(' ')}`);
