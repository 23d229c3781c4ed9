import type { SchemaError } from '../../events/events.js';
import type { ChatCompletionRequest, DeliberationRequest } from '../../protocol/wire.js';

/**
 * The words that carry a --schema on the native path, where the request has no response_format:
 * this line, then the schema as JSON, after the system instructions (README "Answers that match
 * a JSON Schema"). Worded here only, so the simulator and the docs can rely on one sentence.
 */
export const SCHEMA_INSTRUCTION = 'Answer with JSON that matches this JSON Schema:';

/** A --schema, checked and compiled once (turn/schema-compile.ts); `validate` lists what is wrong with a value. */
export interface AnswerSchema {
  /** The name sent with response_format (--schema-name, else the schema's title, else `answer`). */
  name: string;
  schema: Record<string, unknown>;
  /** Corrective turns allowed after an answer that does not match (--schema-retries). */
  retries: number;
  validate(value: unknown): SchemaError[];
}

export type AnswerCheck = { valid: true; value: unknown } | { valid: false; errors: SchemaError[] };

/**
 * Checks the final answer: the whole answer is the JSON value, or one fenced block around it
 * (```json … ```), which councils write out of habit. Anything else is reported as not JSON.
 */
export function checkAnswer(schema: AnswerSchema, content: string): AnswerCheck {
  const text = unfenced(content.trim());
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const why = (err as Error).message.slice(0, 160);
    return { valid: false, errors: [{ path: '/', message: `the answer is not JSON (${why})` }] };
  }
  const errors = schema.validate(value);
  return errors.length === 0 ? { valid: true, value } : { valid: false, errors };
}

function unfenced(text: string): string {
  const m = /^(`{3,})[ \t]*(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n\1[ \t]*$/i.exec(text);
  return m === null ? text : (m[2] ?? '');
}

/** The compat path: OpenAI's structured-output field, which every compatible server names alike. */
export function withResponseFormat(body: ChatCompletionRequest, schema: AnswerSchema): ChatCompletionRequest {
  return {
    ...body,
    response_format: { type: 'json_schema', json_schema: { name: schema.name, schema: schema.schema, strict: true } },
  };
}

/** The native path: the schema in the system instructions, after the user's own. */
export function withSchemaInstruction(body: DeliberationRequest, schema: AnswerSchema): DeliberationRequest {
  const instruction = `${SCHEMA_INSTRUCTION}\n${JSON.stringify(schema.schema)}`;
  const own = body.system_instructions;
  return { ...body, system_instructions: own === undefined || own === '' ? instruction : `${own}\n\n${instruction}` };
}

/** The user turn of a corrective attempt: the validator's errors, and what to send instead. */
export function repairPrompt(errors: readonly SchemaError[]): string {
  const lines = errors.map((e) => `- ${e.path}: ${e.message}`);
  return [
    'Your answer does not match the JSON Schema it must follow. The validator reported:',
    ...lines,
    'Answer again with only the corrected JSON value, matching the schema.',
  ].join('\n');
}
