import type { ToolDefinition } from '../protocol/wire.js';
import type { AnswerFormat } from './answer-format.js';
import { quoted } from './quote.js';
import { valueForSchema } from './schema-value.js';

/** A schema of the request that asks for more than the simulator generates: the field at fault and why. */
export interface SchemaProblem {
  param: string;
  message: string;
}

/**
 * Whether every value the request could make the council generate fits SCHEMA_VALUE_LIMITS: the
 * final answer's schema (`format`, named `formatParam` in the refusal) and the parameters of
 * each offered tool, tried with the question they would be drawn from. Checked before the job
 * starts, so a schema asking for a billion characters is a 400 rather than a job that cannot end.
 */
export function schemaProblem(
  question: string,
  format: AnswerFormat | undefined,
  formatParam: string,
  tools: readonly ToolDefinition[],
): SchemaProblem | undefined {
  if (format?.kind === 'json_schema') {
    const made = valueForSchema(format.schema, question, 0);
    if (!made.ok) return { param: formatParam, message: `the ${quoted(formatParam)} schema asks for ${made.message}` };
  }
  for (const tool of tools) {
    const schema = tool.function.parameters;
    if (schema === undefined) continue;
    const made = valueForSchema(schema, question, 0);
    if (!made.ok)
      return {
        param: 'tools',
        message: `the parameters of tool ${quoted(tool.function.name)} ask for ${made.message}`,
      };
  }
  return undefined;
}
