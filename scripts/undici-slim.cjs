'use strict';
// The parts of undici nsed uses, for the bundle. undici's index also loads fetch, WebSocket,
// cookies, caches and mocks, and that cost a one-shot `ask` ~100-340 ms of module evaluation
// (docs/performance.md). The index attaches request()/stream() to Dispatcher; so does this file.
// test/e2e/startup-cost.test.ts ("bundles every undici name src/ imports") checks that every name src/ imports from undici is here.
const Dispatcher = require('undici/lib/dispatcher/dispatcher');
const api = require('undici/lib/api');

Object.assign(Dispatcher.prototype, api);

module.exports = {
  Dispatcher,
  Agent: require('undici/lib/dispatcher/agent'),
  EnvHttpProxyAgent: require('undici/lib/dispatcher/env-http-proxy-agent'),
  // The proxy tunnel's pool: its CONNECT is bounded by the connect timeout.
  Pool: require('undici/lib/dispatcher/pool'),
};
