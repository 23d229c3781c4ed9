'use strict';
// Stands in for node:http inside undici in the bundles. Loading node:http brings its server, its
// agent and the C++ parser's binding: ~5-9 ms of every one-shot `ask` (docs/performance.md),
// for two names undici reads, neither of which needs it:
// - lib/core/util.js `destroy()` clears the socket of an http.IncomingMessage before destroying
//   it. nsed hands undici no IncomingMessage (its request bodies are strings), so a class nothing
//   is an instance of answers that comparison as the real one does for every body nsed sends.
// - lib/dispatcher/client.js reads `maxHeaderSize` once, at load: Node's --max-http-header-size,
//   16 KiB unless the option is given. Given (on the command line or in NODE_OPTIONS), the real
//   module answers.
class IncomingMessage {}

const OPTION = '--max-http-header-size';
const DEFAULT_MAX_HEADER_SIZE = 16 * 1024;

module.exports = {
  IncomingMessage,
  get maxHeaderSize() {
    const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some(
      (a) => a === OPTION || a.startsWith(`${OPTION}=`),
    );
    return given ? require('node:http').maxHeaderSize : DEFAULT_MAX_HEADER_SIZE;
  },
};
