import ajvModule from 'ajv/dist/2020.js';
import { usageError } from '../../errors.js';
import type { AnswerSchema } from './answer-schema.js';

/**
 * Compiling a --schema with ajv (JSON Schema draft 2020-12), apart from the rest of the schema
 * handling so that ajv loads only for a run that was given a schema.
 */

/** The validator's complaints quoted back to the council, at most this many. */
const MAX_QUOTED_ERRORS = 20;

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Compiles `schema` (draft 2020-12) once. A schema that is not valid JSON Schema is a usage error
 * (exit 2), raised before anything is sent. Formats are not checked (no format vocabulary is
 * installed) and unknown keywords are allowed, as providers' own extensions are.
 */
export function compileAnswerSchema(
  schema: unknown,
  opts: { name?: string | undefined; retries: number; source: string },
): AnswerSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw usageError(
      `--schema ${opts.source} is not a JSON Schema object`,
      'e.g. {"type":"object","properties":{...}}',
    );
  // A CommonJS module whose exports are the class, with the class again as `default`.
  const Ajv = ajvModule.default;
  const ajv = new Ajv({ allErrors: true, strict: false, logger: false, validateFormats: false });
  let check: ReturnType<typeof ajv.compile>;
  try {
    check = ajv.compile(schema);
  } catch (err) {
    throw usageError(
      `--schema ${opts.source} is not a valid JSON Schema: ${(err as Error).message}`.slice(0, 400),
      'the schema is checked as draft 2020-12 before anything is sent',
    );
  }
  const obj = schema as Record<string, unknown>;
  const loop = selfReference(obj);
  if (loop !== undefined)
    throw usageError(
      `--schema ${opts.source} refers to itself without end: ${loop.slice(0, 200)}`,
      'a $ref back to an enclosing schema must go through a property or an item, e.g. {"properties":{"next":{"$ref":"#"}}}',
    );
  const name = opts.name ?? nameFromTitle(obj['title']);
  if (!NAME.test(name))
    throw usageError(
      `--schema-name '${name.slice(0, 80)}' is not a valid name`,
      "use letters, digits, '_' and '-' (at most 64)",
    );
  return {
    name,
    schema: obj,
    retries: opts.retries,
    validate(value) {
      if (check(value)) return [];
      return (check.errors ?? []).slice(0, MAX_QUOTED_ERRORS).map((e) => ({
        path: e.instancePath === '' ? '/' : e.instancePath,
        message: messageOf(e.message ?? 'is invalid', e.keyword, e.params as Record<string, unknown>),
      }));
    },
  };
}

/**
 * The keywords that apply their subschemas to the same value, not to a part of it: a $ref cycle
 * through these alone never ends (`{"$ref":"#"}`), and validating against it overflows the stack.
 */
const IN_PLACE_ONE = ['$ref', 'not', 'if', 'then', 'else'] as const;
const IN_PLACE_MANY = ['allOf', 'anyOf', 'oneOf'] as const;
const IN_PLACE_MAP = ['dependentSchemas'] as const;
/** Keywords whose values are data, not schemas: a `$ref` inside them refers to nothing. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);
/** Enough for any schema a person writes; a deeper chain is refused as the loop it most likely is. */
const MAX_IN_PLACE_DEPTH = 256;

/**
 * The first cycle of local references (`#`, `#/$defs/x`) that applies a schema to the value it is
 * already checking, as the chain of pointers that closes it; undefined when there is none.
 */
function selfReference(root: Record<string, unknown>): string | undefined {
  const at = (pointer: string): unknown => {
    let node: unknown = root;
    for (const raw of pointer.split('/').slice(1)) {
      const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
      if (typeof node !== 'object' || node === null) return undefined;
      node = (node as Record<string, unknown>)[key];
    }
    return node;
  };
  // Schemas whose in-place references are known to end: each is explored once.
  const ends = new Set<string>();
  const walk = (node: unknown, pointer: string, path: readonly string[]): string | undefined => {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || ends.has(pointer)) return undefined;
    if (path.includes(pointer)) return [...path, pointer].map((p) => `#${p}`).join(' -> ');
    if (path.length > MAX_IN_PLACE_DEPTH) return `#${pointer} (deeper than ${MAX_IN_PLACE_DEPTH})`;
    const next = [...path, pointer];
    const s = node as Record<string, unknown>;
    const ref = s['$ref'];
    if (typeof ref === 'string' && (ref === '#' || ref.startsWith('#/'))) {
      const target = ref.slice(1);
      const found = walk(at(target), target, next);
      if (found !== undefined) return found;
    }
    for (const k of IN_PLACE_ONE) {
      if (k === '$ref') continue;
      const found = walk(s[k], `${pointer}/${k}`, next);
      if (found !== undefined) return found;
    }
    for (const k of IN_PLACE_MANY) {
      const list = s[k];
      if (!Array.isArray(list)) continue;
      for (const [i, sub] of list.entries()) {
        const found = walk(sub, `${pointer}/${k}/${i}`, next);
        if (found !== undefined) return found;
      }
    }
    for (const k of IN_PLACE_MAP) {
      const map = s[k];
      if (typeof map !== 'object' || map === null) continue;
      for (const [name, sub] of Object.entries(map)) {
        const found = walk(sub, `${pointer}/${k}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`, next);
        if (found !== undefined) return found;
      }
    }
    ends.add(pointer);
    return undefined;
  };
  // From every schema in the document: a loop under a property is reached when that property is checked.
  const everywhere = (node: unknown, pointer: string): string | undefined => {
    if (typeof node !== 'object' || node === null) return undefined;
    const found = Array.isArray(node) ? undefined : walk(node, pointer, []);
    if (found !== undefined) return found;
    for (const [k, v] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(k)) continue;
      const inner = everywhere(v, `${pointer}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`);
      if (inner !== undefined) return inner;
    }
    return undefined;
  };
  return everywhere(root, '');
}

/** The schema's title as a response_format name, when it can be one; else `answer`. */
function nameFromTitle(title: unknown): string {
  if (typeof title !== 'string') return 'answer';
  const name = title
    .trim()
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .slice(0, 64);
  return name === '' || name === '_' ? 'answer' : name;
}

/** ajv's message, plus the detail it keeps in params (which property, which values). */
function messageOf(message: string, keyword: string, params: Record<string, unknown>): string {
  if (keyword === 'additionalProperties') return `${message}: '${String(params['additionalProperty'])}'`;
  if (keyword === 'enum' && Array.isArray(params['allowedValues']))
    return `${message}: ${JSON.stringify(params['allowedValues']).slice(0, 200)}`;
  if (keyword === 'required') return message.replace(/^must have required property/, 'must have the property');
  return message;
}
