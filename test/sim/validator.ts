import { Ajv2020 } from 'ajv/dist/2020.js';

/**
 * A draft 2020-12 validator as real clients run one (codex, promptfoo, nsed's own --schema):
 * ajv, formats not checked (the generator's fixed values are valid ones anyway), `strict` off so
 * keywords of older drafts that clients still send (`definitions`) are accepted.
 */
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });

/** Validates `value` against `schema`: the errors ajv reports, none when it fits. */
export function schemaErrors(schema: unknown, value: unknown): string[] {
  const validate = ajv.compile(schema as object);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}
