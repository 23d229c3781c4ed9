'use strict';
/* global WebAssembly */
// undici compiles its HTTP parser, llhttp in WebAssembly, on the main thread when its first
// connection opens (lib/dispatcher/client-h1.js, lazyllhttp): 2-5 ms of every one-shot `ask`
// that node:http's built-in parser does not cost. Here the compile
// starts in V8's background threads when the bundle loads undici, and a new connection is handed
// to undici once that compile has settled, so undici's parser is the module compiled there.
const bytes = () => require('undici/lib/llhttp/llhttp_simd-wasm.js');

let compiled;
let compiling;
let settled = false;

/** Starts the compile off the main thread, once per process, unless undici is told not to use SIMD. */
exports.compileSoon = function compileSoon() {
  if (process.env.UNDICI_NO_WASM_SIMD === '1') return;
  compiling ??= WebAssembly.compile(bytes())
    .then(
      (mod) => {
        compiled = mod;
      },
      // A CPU without WebAssembly SIMD: undici's own compile below fails too, and it falls back.
      () => {},
    )
    .finally(() => {
      settled = true;
    });
};

/** Stands in for undici's `new WebAssembly.Module(require('../llhttp/llhttp_simd-wasm.js'))`. */
exports.simdModule = function simdModule() {
  return compiled ?? new WebAssembly.Module(bytes());
};

/**
 * undici's connector (lib/core/connect.js), whose callback waits for the compile: the result of a
 * compile reaches JavaScript only on a turn of the event loop, and a process busy until it
 * connects may not have taken one. The compile always settles; a socket that closes meanwhile
 * is refused by undici as it would be at once.
 */
exports.afterCompile = function afterCompile(connect) {
  return function connectAfterCompile(opts, callback) {
    return connect(opts, (err, socket) => {
      if (err || settled || compiling === undefined) callback(err, socket);
      else void compiling.then(() => callback(err, socket));
    });
  };
};
