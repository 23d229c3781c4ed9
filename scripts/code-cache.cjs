'use strict';
// `node scripts/code-cache.cjs BUNDLE CACHE [WORDS…]`: runs a fast entry (dist/fast.cjs or
// dist/help.cjs) once for WORDS, loaded as bin/nsed.cjs loads it, and writes V8's code cache of
// what that run compiled to CACHE. scripts/build.mjs runs it in a plain `node` (no flags: V8 rejects
// a cache made under other flags), bin/nsed.cjs hands the cache to V8 on Node < 22.1, which has no
// module.enableCompileCache (bench/RESULTS.md has what it saves).
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

const [bundle, cache, ...words] = process.argv.slice(2);
const script = new vm.Script(Module.wrap(fs.readFileSync(bundle, 'utf8')), { filename: bundle });
const mod = { exports: {} };
script
  .runInThisContext()
  .call(mod.exports, mod.exports, Module.createRequire(bundle), mod, bundle, path.dirname(bundle));
process.on('exit', () => fs.writeFileSync(cache, script.createCachedData()));
// Without WORDS, the cache holds what loading the bundle compiled: dist/ask.cjs sets a V8 flag when
// it runs, and V8 rejects a cache made after that in every process that starts without it.
if (words.length > 0 && !mod.exports.run(words)) throw new Error(`${bundle} declined ${words.join(' ')}`);
