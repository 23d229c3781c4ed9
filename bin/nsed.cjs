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
  import('../dist/main.js');
}
