import { describe, expect, it } from 'vitest';
import { mulberry32, type Rng } from '../../src/sim/rng.js';
import { SCHEMA_VALUE_LIMITS, valueForSchema } from '../../src/sim/schema-value.js';
import { schemaErrors } from './validator.js';

const QUESTION = 'Use get_weather for Paris in celsius, then work out 12*7 for src/app.ts';

function expectValid(schema: unknown, question = QUESTION, seed: string | number = 0): unknown {
  const made = valueForSchema(schema, question, seed);
  if (!made.ok) throw new Error(`no value for ${JSON.stringify(schema)}: ${made.message}`);
  const value = made.value;
  expect({ value, errors: schemaErrors(schema, value) }).toEqual({ value, errors: [] });
  return value;
}

const SCHEMAS: Array<[string, unknown]> = [
  ['a bare string', { type: 'string' }],
  ['a string with both bounds', { type: 'string', minLength: 30, maxLength: 31 }],
  ['a short string', { type: 'string', maxLength: 3 }],
  ['a pattern', { type: 'string', pattern: '^[a-z]+$' }],
  ['a digits pattern', { type: 'string', pattern: '^[0-9]{2,}$' }],
  [
    'formats',
    {
      type: 'object',
      properties: { at: { type: 'string', format: 'date-time' }, id: { type: 'string', format: 'uuid' } },
      required: ['at', 'id'],
    },
  ],
  ['an integer range', { type: 'integer', minimum: 3, maximum: 5 }],
  ['exclusive bounds', { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }],
  ['multipleOf with a fraction', { type: 'number', minimum: 0.05, maximum: 1, multipleOf: 0.05 }],
  ['multipleOf away from zero', { type: 'integer', minimum: 101, multipleOf: 7 }],
  ['a negative range', { type: 'integer', maximum: -10 }],
  ['boolean and null', { type: 'array', prefixItems: [{ type: 'boolean' }, { type: 'null' }], items: false }],
  [
    'const and enum',
    { type: 'object', properties: { v: { const: 'v1' }, e: { enum: [1, 'two', null] } }, required: ['v', 'e'] },
  ],
  ['a type list', { type: ['null', 'integer'], minimum: 1 }],
  ['no type at all', { properties: { a: { type: 'string' } }, required: ['a'] }],
  ['an empty schema', {}],
  ['true', true],
  [
    'closed object with required',
    {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
  ],
  [
    'minProperties over declared properties',
    { type: 'object', properties: { a: { type: 'string' } }, minProperties: 3 },
  ],
  [
    'maxProperties',
    {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } },
      required: ['a'],
      maxProperties: 1,
    },
  ],
  [
    'dependentRequired',
    {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      required: ['a'],
      dependentRequired: { a: ['b'] },
    },
  ],
  ['an array with bounds', { type: 'array', items: { type: 'integer' }, minItems: 4, maxItems: 4 }],
  ['unique enum items', { type: 'array', items: { enum: ['x', 'y', 'z'] }, minItems: 3, uniqueItems: true }],
  ['unique strings', { type: 'array', items: { type: 'string' }, minItems: 5, uniqueItems: true }],
  ['contains', { type: 'array', items: { type: 'integer' }, contains: { const: 42 } }],
  [
    'nested objects',
    {
      type: 'object',
      properties: {
        a: {
          type: 'object',
          properties: {
            b: {
              type: 'object',
              properties: {
                c: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { d: { type: 'integer' } },
                    required: ['d'],
                    additionalProperties: false,
                  },
                  minItems: 1,
                },
              },
              required: ['c'],
            },
          },
          required: ['b'],
        },
      },
      required: ['a'],
    },
  ],
  [
    'anyOf first branch',
    { anyOf: [{ type: 'object', properties: { kind: { const: 'a' } }, required: ['kind'] }, { type: 'string' }] },
  ],
  [
    'oneOf with siblings',
    {
      type: 'object',
      properties: { x: { type: 'string' } },
      required: ['x'],
      oneOf: [{ required: ['y'], properties: { y: { type: 'integer' } } }],
    },
  ],
  [
    'allOf merged',
    {
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { b: { type: 'integer', minimum: 2 } }, required: ['b'] },
      ],
    },
  ],
  [
    '$ref into $defs',
    {
      $defs: { city: { type: 'string', minLength: 2 } },
      type: 'object',
      properties: { city: { $ref: '#/$defs/city' } },
      required: ['city'],
    },
  ],
  [
    '$ref into definitions',
    {
      definitions: { n: { type: 'integer', minimum: 1 } },
      type: 'array',
      items: { $ref: '#/definitions/n' },
      minItems: 2,
    },
  ],
  [
    'a recursive $ref',
    {
      $defs: {
        node: {
          type: 'object',
          properties: { name: { type: 'string' }, child: { $ref: '#/$defs/node' } },
          required: ['name'],
        },
      },
      $ref: '#/$defs/node',
    },
  ],
  ['additionalProperties as a schema', { type: 'object', additionalProperties: { type: 'integer' }, minProperties: 2 }],
  [
    'a review verdict',
    {
      type: 'object',
      properties: {
        verdict: { enum: ['approve', 'reject'] },
        issues: {
          type: 'array',
          items: {
            type: 'object',
            properties: { line: { type: 'integer', minimum: 1 }, message: { type: 'string', minLength: 1 } },
            required: ['line', 'message'],
            additionalProperties: false,
          },
        },
        score: { type: 'number', minimum: 0, maximum: 10 },
      },
      required: ['verdict', 'issues', 'score'],
      additionalProperties: false,
    },
  ],
];

/** Schemas whose smallest valid value is far larger than any answer (docs/reliability.md #276). */
const WEDGING: Array<[string, unknown, RegExp]> = [
  [
    'minLength 1e9',
    { type: 'string', minLength: 1_000_000_000 },
    /string of at least 1000000000 characters.*lower minLength/,
  ],
  [
    'minItems 1e8',
    { type: 'array', items: { type: 'integer' }, minItems: 100_000_000 },
    /array of at least 100000000 items.*lower minItems/,
  ],
  [
    '100,000 long required strings',
    {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 100_000 }, (_, i) => [`field_${i}`, { type: 'string', minLength: 100 }]),
      ),
      required: Array.from({ length: 100_000 }, (_, i) => `field_${i}`),
    },
    /object of 100000 fields/,
  ],
  ['minProperties 1e9', { type: 'object', minProperties: 1_000_000_000 }, /object of 1000000000 fields/],
  [
    'a recursive $ref that fans out',
    {
      $defs: {
        node: {
          type: 'object',
          properties: Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((k) => [k, { $ref: '#/$defs/node' }])),
          required: ['a', 'b', 'c', 'd', 'e'],
        },
      },
      $ref: '#/$defs/node',
    },
    /past the 20000 values the simulator generates \(lower the nesting or the recursion\)/,
  ],
];

describe('what the generator refuses to build', () => {
  it.each(WEDGING)('%s: refused, naming what it asks for', (_name, schema, says) => {
    const made = valueForSchema(schema, QUESTION, 0);
    expect(made.ok).toBe(false);
    expect(made.ok ? '' : made.message).toMatch(says);
  });

  it('builds what is large but within the limits, exactly as asked', () => {
    const long = expectValid({ type: 'string', minLength: 200_000, maxLength: 200_001 });
    expect(String(long).length).toBeGreaterThanOrEqual(200_000);
    expect(expectValid({ type: 'array', items: { type: 'integer' }, minItems: 5_000 })).toHaveLength(5_000);
    expect(SCHEMA_VALUE_LIMITS.steps).toBeGreaterThan(5_000);
  });
});

describe('a JSON value generated from a JSON Schema (ajv, draft 2020-12)', () => {
  it.each(SCHEMAS)('validates: %s', (_name, schema) => {
    expectValid(schema);
  });

  it('is the same value for the same seed, question and schema, and varies with the seed', () => {
    const schema = SCHEMAS.find(([n]) => n === 'a review verdict')?.[1];
    const a = valueForSchema(schema, QUESTION, 7);
    expect(valueForSchema(schema, QUESTION, 7)).toEqual(a);
    const others = [1, 2, 3, 4, 5, 6].map((seed) => JSON.stringify(valueForSchema(schema, QUESTION, seed)));
    expect(new Set([JSON.stringify(a), ...others]).size).toBeGreaterThan(1);
  });

  it('draws strings from the question where the field name says what fits', () => {
    const v = expectValid({
      type: 'object',
      properties: {
        city: { type: 'string' },
        unit: { type: 'string', enum: ['fahrenheit', 'celsius'] },
        expr: { type: 'string' },
        path: { type: 'string' },
      },
      required: ['city', 'unit', 'expr', 'path'],
    });
    expect(v).toEqual({ city: 'Paris', unit: 'celsius', expr: '12*7', path: 'src/app.ts' });
  });

  it('leaves optional fields the question says nothing about mostly empty, never all filled by rule', () => {
    const schema = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`opt${i}`, { type: 'string' }])),
    };
    const sizes = [0, 1, 2, 3].map((seed) => Object.keys(expectValid(schema, QUESTION, seed) as object).length);
    expect(Math.max(...sizes)).toBeLessThan(12);
  });

  it('validates a few hundred random schemas (seeded, so a failure repeats)', () => {
    const rng = mulberry32(20261201);
    const questions = [QUESTION, '', 'ok', 'Compare Redis and Postgres for a job queue of 10000 jobs/s'];
    for (let i = 0; i < 400; i++) expectValid(randomSchema(rng, 0), questions[i % questions.length], i);
  });
});

/** A random schema of the kinds tools and structured answers use, up to three levels deep. */
function randomSchema(rng: Rng, depth: number): Record<string, unknown> {
  const kinds =
    depth >= 3
      ? ['string', 'integer', 'number', 'boolean', 'enum']
      : ['object', 'array', 'string', 'integer', 'number', 'boolean', 'enum', 'anyOf'];
  const kind = rng.pick(kinds);
  switch (kind) {
    case 'object': {
      const n = rng.int(5);
      const properties: Record<string, unknown> = {};
      const names = ['city', 'query', 'count', 'items', 'unit', 'path', 'note', 'id', 'expr', 'flag'];
      for (let k = 0; k < n; k++) properties[`${rng.pick(names)}${k}`] = randomSchema(rng, depth + 1);
      const keys = Object.keys(properties);
      return {
        type: 'object',
        properties,
        required: keys.filter(() => rng.chance(0.5)),
        ...(rng.chance(0.5) ? { additionalProperties: false } : {}),
      };
    }
    case 'array': {
      const min = rng.int(3);
      return {
        type: 'array',
        items: randomSchema(rng, depth + 1),
        minItems: min,
        ...(rng.chance(0.5) ? { maxItems: min + rng.int(3) } : {}),
      };
    }
    case 'string': {
      const min = rng.int(8);
      return {
        type: 'string',
        ...(rng.chance(0.5) ? { minLength: min } : {}),
        ...(rng.chance(0.5) ? { maxLength: min + rng.int(20) } : {}),
      };
    }
    case 'integer': {
      const lo = rng.int(200) - 100;
      return {
        type: 'integer',
        ...(rng.chance(0.6) ? { minimum: lo } : {}),
        ...(rng.chance(0.6) ? { maximum: lo + rng.int(50) } : {}),
        ...(rng.chance(0.3) ? { multipleOf: 1 + rng.int(5) } : {}),
      };
    }
    case 'number': {
      const lo = rng.range(-5, 5);
      return {
        type: 'number',
        ...(rng.chance(0.5) ? { exclusiveMinimum: lo } : {}),
        ...(rng.chance(0.5) ? { maximum: lo + rng.range(0.5, 10) } : {}),
      };
    }
    case 'boolean':
      return { type: 'boolean' };
    case 'enum':
      return { enum: ['celsius', 'fahrenheit', 3, null].slice(0, 1 + rng.int(4)) };
    default:
      return { anyOf: [randomSchema(rng, depth + 1), { type: 'null' }] };
  }
}
