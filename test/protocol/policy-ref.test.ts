import { describe, expect, it } from 'vitest';
import { NsedError } from '../../src/errors.js';
import { fromModel, toModel } from '../../src/protocol/policy-ref.js';

const id = 'a'.repeat(32) + '0123456789abcdef0123456789abcdef';

describe('toModel', () => {
  it.each([
    ['deep', 'nsed:deep'],
    ['nsed:deep', 'nsed:deep'],
    ['*', 'nsed:*'],
    [id, `nsed:${id}`],
    [`nsed:${id}`, `nsed:${id}`],
    ['mid:0v1', 'nsed:mid:0v1'],
    ['nsed:mid:0v1', 'nsed:mid:0v1'],
  ])('turns %s into %s', (policy, model) => {
    expect(toModel(policy)).toBe(model);
  });

  it('refuses an empty policy as a usage error', () => {
    const err = (() => {
      try {
        toModel('  ');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(NsedError);
    expect((err as NsedError).exitCode).toBe(2);
    expect(() => toModel('nsed:')).toThrow(/names nothing/);
  });
});

describe('fromModel', () => {
  it('strips only the leading nsed: prefix', () => {
    expect(fromModel('nsed:deep')).toBe('deep');
    expect(fromModel('nsed:mid:0v1')).toBe('mid:0v1');
    expect(fromModel('nsed:nsed:x')).toBe('nsed:x');
    expect(fromModel('nsed:*')).toBe('*');
  });

  it('returns undefined for a model that is not an NSED model', () => {
    expect(fromModel('gpt-4o')).toBeUndefined();
    expect(fromModel('deep')).toBeUndefined();
    expect(fromModel('NSED:deep')).toBeUndefined();
  });

  it('round-trips with toModel', () => {
    for (const p of ['deep', '*', id, 'mid:0v1']) expect(fromModel(toModel(p))).toBe(p);
  });
});
