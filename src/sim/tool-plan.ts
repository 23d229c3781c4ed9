import { randomBytes } from 'node:crypto';
import type { ToolCall, ToolDefinition } from '../protocol/wire.js';
import { isRecord } from './http-util.js';
import type { TextContext } from './text-context.js';

/** Arguments that fit the tool's JSON Schema well enough to be plausible, built from the question. */
function argumentsFor(tool: ToolDefinition, text: TextContext): Record<string, unknown> {
  const props = tool.function.parameters?.properties;
  if (!isRecord(props) || Object.keys(props).length === 0) return { input: text.question };
  const terms = [text.t1, text.t2, text.t3];
  const args: Record<string, unknown> = {};
  let strings = 0;
  for (const [key, schema] of Object.entries(props)) {
    const type = isRecord(schema) ? schema.type : undefined;
    if (type === 'number' || type === 'integer') args[key] = 1;
    else if (type === 'boolean') args[key] = true;
    else if (type === 'array') args[key] = [text.t1];
    else if (type === 'object') args[key] = {};
    else args[key] = strings++ === 0 ? text.question : (terms[(strings - 2) % terms.length] ?? text.topic);
  }
  return args;
}

/**
 * The council calls a client tool when the request offers tools and the question names one,
 * unless this request already carries that round's tool results.
 */
export function planToolCall(tools: readonly ToolDefinition[], question: string, hasResults: boolean, text: TextContext): ToolCall | undefined {
  if (hasResults || tools.length === 0) return undefined;
  const tool = tools.find((t) => t.function.name !== '' && question.includes(t.function.name));
  if (!tool) return undefined;
  return {
    id: `call_${randomBytes(12).toString('hex')}`,
    type: 'function',
    function: { name: tool.function.name, arguments: JSON.stringify(argumentsFor(tool, text)) },
  };
}
