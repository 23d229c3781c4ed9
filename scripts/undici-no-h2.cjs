'use strict';
// Stands in for undici's lib/dispatcher/client-h2.js in the bundle. undici's client requires it
// at load, and it loads node:http2 (~15 ms of every `ask`); nsed never
// sets `allowH2`, so undici never negotiates HTTP/2 and never calls this.
module.exports = function connectH2() {
  throw new Error('nsed is built without HTTP/2 support in undici');
};
