'use strict';
// Stands in for undici's lib/web/fetch/body.js in the bundles, which client-h1.js requires only to
// send a FormData body. nsed's one request call (src/api/transport.ts) sends a string or nothing,
// so undici's fetch body code (~60 KB, with a licence notice that is not ASCII: a bundle that is
// not ASCII is read as a two-byte string) stays out.
module.exports = {
  extractBody() {
    throw new Error('nsed is built without FormData request bodies in undici');
  },
};
