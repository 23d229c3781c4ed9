import { isRecord } from './http-util.js';

/** A JSON Schema object, read keyword by keyword (src/sim/schema-value.ts generates values from it). */
export type Schema = Record<string, unknown>;

/** The schema's type: the first non-null one it allows, else what its keywords imply. */
export function typeOf(s: Schema): string {
  const t = s.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return (t.find((x) => x !== 'null') as string | undefined) ?? 'null';
  if (isRecord(s.properties) || s.required !== undefined || s.additionalProperties !== undefined) return 'object';
  if (s.items !== undefined || s.prefixItems !== undefined || s.minItems !== undefined) return 'array';
  if (s.minimum !== undefined || s.maximum !== undefined || s.multipleOf !== undefined) return 'number';
  return 'string';
}

/** Both schemas at once, as far as a generator needs: properties, required and bounds combined. */
export function merge(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a, ...b };
  if (isRecord(a.properties) && isRecord(b.properties)) {
    const props: Schema = { ...a.properties };
    for (const [k, v] of Object.entries(b.properties)) props[k] = k in props ? { allOf: [props[k], v] } : v;
    out.properties = props;
  }
  if (a.required !== undefined || b.required !== undefined)
    out.required = [...new Set([...strings(a.required), ...strings(b.required)])];
  if (a.type !== undefined && b.type !== undefined) out.type = commonType(a.type, b.type);
  for (const k of ['minimum', 'minLength', 'minItems', 'minProperties'] as const)
    if (typeof a[k] === 'number' && typeof b[k] === 'number') out[k] = Math.max(a[k], b[k]);
  for (const k of ['maximum', 'maxLength', 'maxItems', 'maxProperties'] as const)
    if (typeof a[k] === 'number' && typeof b[k] === 'number') out[k] = Math.min(a[k], b[k]);
  if (a.additionalProperties === false || b.additionalProperties === false) out.additionalProperties = false;
  return out;
}

function commonType(a: unknown, b: unknown): unknown {
  const as = Array.isArray(a) ? a : [a];
  const bs = Array.isArray(b) ? b : [b];
  const both = as.filter((t) => bs.includes(t) || (t === 'integer' && bs.includes('number')));
  const fromB = bs.filter((t) => t === 'integer' && as.includes('number'));
  const all = [...both, ...fromB];
  return all.length === 0 ? b : all.length === 1 ? all[0] : all;
}

export const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

/** `multipleOf` as ajv checks it: the quotient must come out whole in floating point. */
export function multiple(n: number, s: Schema): boolean {
  const m = s.multipleOf;
  if (typeof m !== 'number' || m <= 0) return true;
  const q = n / m;
  return q === Math.trunc(q);
}
