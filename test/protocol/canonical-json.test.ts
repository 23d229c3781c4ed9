// The serialisation content hashes are taken over: the simulator's policy ids and the request an
// idempotency key names (docs/ci.md "Re-runs that never pay twice") both go through it.
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/protocol/canonical-json.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined members, so equal values hash equally', () => {
    expect(canonicalJson({ b: 1, a: [1, { d: 2, c: undefined }] })).toBe('{"a":[1,{"d":2}],"b":1}');
    expect(canonicalJson({ z: { y: 1, x: 2 }, a: null })).toBe(canonicalJson({ a: null, z: { x: 2, y: 1 } }));
  });

  it('writes what JSON cannot hold as null, inside an array or alone', () => {
    expect(canonicalJson([1, undefined, 'x'])).toBe('[1,null,"x"]');
    expect(canonicalJson(undefined)).toBe('null');
  });
});
