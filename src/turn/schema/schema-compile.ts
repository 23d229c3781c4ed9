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
