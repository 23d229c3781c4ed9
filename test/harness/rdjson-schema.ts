// reviewdog's Diagnostic, as the package ships it (schemas/rdjson.schema.json, from reviewdog's
// proto and published JSON Schema): what the rdjsonl that --rdjson writes is checked against.
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';

const SCHEMA = JSON.parse(readFileSync(new URL('../../schemas/rdjson.schema.json', import.meta.url), 'utf8')) as Record<
  string,
  unknown
>;

/**
 * The same schema closed: every object refuses a field the proto does not name. reviewdog reads
 * rdjsonl with protobuf's JSON decoder, so a field of our own could make it refuse the line.
 */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === 'additionalProperties' ? false : closed(v);
  return out;
}

const ajv = new Ajv({ strict: false, allErrors: true });
const open = ajv.compile(SCHEMA);
const strict = ajv.compile({ ...(closed(SCHEMA) as object), $id: 'closed' });

/** What reviewdog's schema, open and closed, refuses in each line of `rdjsonl`; empty when every line fits. */
export function rdjsonErrors(rdjsonl: string): string[] {
  const errors: string[] = [];
  for (const [i, line] of rdjsonl.split('\n').entries()) {
    if (line === '') continue;
    const value: unknown = JSON.parse(line);
    for (const [name, validate] of [
      ['schema', open],
      ['closed schema', strict],
    ] as const)
      if (!validate(value))
        for (const e of validate.errors ?? [])
          errors.push(`line ${i + 1} (${name}): ${e.instancePath || '/'} ${e.message ?? ''}`);
  }
  return errors;
}
