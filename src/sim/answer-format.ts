import { isRecord } from './http-util.js';
import { type JsonValue, valueForSchema } from './schema-value.js';

/** What shape the final answer must take: any JSON object, or a value that fits a JSON Schema. */
export type AnswerFormat = { kind: 'json_object' } | { kind: 'json_schema'; name: string; schema: unknown };

export type FormatParse = { ok: true; format: AnswerFormat | undefined } | { ok: false; message: string };

/**
 * The wording nsed puts in `system_instructions` on the native path, where the protocol has no
 * `response_format`: this line, then the schema as JSON (README: the simulator).
 */
export const SCHEMA_INSTRUCTION = 'Answer with JSON that matches this JSON Schema:';

/** An OpenAI `response_format` (chat completions) or `text.format` (Responses, flat) as a format. */
function formatOf(v: unknown, where: string, flat: boolean): FormatParse {
  if (v === undefined || v === null) return { ok: true, format: undefined };
  if (!isRecord(v) || typeof v.type !== 'string')
    return { ok: false, message: `'${where}' must be an object with a 'type'` };
  if (v.type === 'text') return { ok: true, format: undefined };
  if (v.type === 'json_object') return { ok: true, format: { kind: 'json_object' } };
  if (v.type !== 'json_schema')
    return { ok: false, message: `'${where}.type' must be one of text, json_object, json_schema` };
  const spec = flat ? v : v.json_schema;
  const at = flat ? where : `${where}.json_schema`;
  if (!isRecord(spec)) return { ok: false, message: `missing required parameter '${at}'` };
  if (typeof spec.name !== 'string' || spec.name === '')
    return { ok: false, message: `missing required parameter '${at}.name'` };
  if (spec.schema !== undefined && !isRecord(spec.schema) && typeof spec.schema !== 'boolean')
    return { ok: false, message: `'${at}.schema' must be a JSON Schema object` };
  return { ok: true, format: { kind: 'json_schema', name: spec.name, schema: spec.schema ?? {} } };
}

export const chatAnswerFormat = (body: Record<string, unknown>): FormatParse =>
  formatOf(body.response_format, 'response_format', false);

export const responsesAnswerFormat = (body: Record<string, unknown>): FormatParse =>
  formatOf(isRecord(body.text) ? body.text.format : undefined, 'text.format', true);

/** The schema nsed worded into native `system_instructions`, if the text holds one that parses. */
export function instructionsAnswerFormat(text: string | undefined): AnswerFormat | undefined {
  const at = text?.indexOf(SCHEMA_INSTRUCTION) ?? -1;
  if (text === undefined || at < 0) return undefined;
  const json = leadingJson(text.slice(at + SCHEMA_INSTRUCTION.length));
  if (json === undefined) return undefined;
  try {
    const schema: unknown = JSON.parse(json);
    return isRecord(schema) || typeof schema === 'boolean'
      ? { kind: 'json_schema', name: 'answer', schema }
      : undefined;
  } catch {
    return undefined;
  }
}

/** The JSON object (or boolean) that opens `text` after whitespace, up to its matching brace. */
function leadingJson(text: string): string | undefined {
  const start = text.search(/\S/);
  if (start < 0) return undefined;
  if (/^(true|false)\b/.test(text.slice(start))) return text.slice(start).startsWith('true') ? 'true' : 'false';
  if (text[start] !== '{') return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return text.slice(start, i + 1);
    }
  }
  return undefined;
}

export interface StructuredPlan {
  format: AnswerFormat;
  /** Fault `schema=violate-once`: this answer is the thread's first, and breaks the format. */
  violate: boolean;
}

/**
 * The final answer in the asked format: the deliberation's prose inside `{"answer": …}` for a
 * JSON object, a value generated to fit the schema otherwise (strings from the question).
 * A violating answer drops a required field, or has the wrong type, or is not JSON at all.
 */
export function structuredAnswer(plan: StructuredPlan, prose: string, question: string, seed: string): string {
  const { format } = plan;
  if (format.kind === 'json_object') return plan.violate ? prose : JSON.stringify({ answer: prose });
  const made = valueForSchema(format.schema, question, seed);
  // The request's schema was tried before the job started (schema-bounds.ts); one that passed
  // there and not here, with this seed, gets the prose, which the client's validation catches.
  if (!made.ok) return prose;
  return plan.violate ? violating(format.schema, made.value, prose) : JSON.stringify(made.value);
}

function violating(schema: unknown, value: JsonValue, prose: string): string {
  const root = isRecord(schema) ? resolveRoot(schema) : {};
  const required = Array.isArray(root.required) ? root.required.filter((k): k is string => typeof k === 'string') : [];
  if (isRecord(value) && required.some((k) => k in value)) {
    const dropped = { ...value };
    delete dropped[required.find((k) => k in value) ?? ''];
    return JSON.stringify(dropped);
  }
  const type = Array.isArray(root.type) ? root.type[0] : root.type;
  if (type === 'object') return JSON.stringify([value]);
  if (type === 'array') return JSON.stringify({ items: value });
  if (type === 'string') return '42';
  if (typeof type === 'string') return JSON.stringify(`not ${type}`);
  return prose;
}

/** A root that is only a `$ref` into its own `$defs` or `definitions`, followed once. */
function resolveRoot(schema: Record<string, unknown>): Record<string, unknown> {
  const ref = schema.$ref;
  const m = typeof ref === 'string' ? /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref) : null;
  if (m === null) return schema;
  const defs = schema[m[1] ?? ''];
  const target = isRecord(defs) ? defs[decodeURIComponent(m[2] ?? '')] : undefined;
  return isRecord(target) ? { ...target, ...schema } : schema;
}
