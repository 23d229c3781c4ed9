#!/usr/bin/env node
'use strict';
// CommonJS on purpose: an ES-module entry costs ~25 ms more to start (bench/RESULTS.md), and
// `nsed --version` sits in shell loops. Everything else is the bundled ES module.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  // Node >= 22.1 keeps the compiled bundle on disk between runs (bench/RESULTS.md has the
  // figures); older Node lacks the function and starts as before. NODE_DISABLE_COMPILE_CACHE=1
  // turns it off.
  const { enableCompileCache } = require('node:module');
  if (typeof enableCompileCache === 'function') enableCompileCache();
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
