'use strict';
// Stands in for node:assert inside undici in the bundles. undici calls only `assert(value)`, on
// invariants; loading node:assert at start-up builds the process's stderr stream (its colours
// check) and costs a one-shot `ask` ~2-4 ms. A failed invariant
// throws node:assert's own AssertionError, loaded then.
module.exports = function assert(value, message) {
  if (!value) require('node:assert')(value, message);
};
