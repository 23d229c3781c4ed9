import { usageError } from '../errors.js';
import type { ToolDefinition, UserTool } from '../protocol/wire.js';

/** How nsed runs a tool it may run: argv (never a shell string), a time limit and an output cap. */
export interface ToolCommand {
  argv: string[];
  timeoutMs: number;
  maxOutputBytes: number;
}

/** One tool the user declared: what the council is offered, and, if given, how nsed runs it. */
export interface DeclaredTool {
  definition: ToolDefinition;
  command?: ToolCommand;
}

/** Every tool of one invocation, by name; only these are ever offered, and only those with a command run. */
export interface DeclaredTools {
  tools: Map<string, DeclaredTool>;
  /** `--ask-user`: the council may put a question to the person (not a program). */
  askUser: boolean;
  /** Calls run (or refused) per turn before nsed answers the rest with an error. */
  maxCalls: number;
}

export const ASK_USER = 'ask_user';
export const DEFAULT_TIMEOUT_S = 30;
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
export const DEFAULT_MAX_TOOL_CALLS = 8;
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The question tool the reference client always offers; nsed offers it on --ask-user. */
export const ASK_USER_DEFINITION: ToolDefinition = {
  type: 'function',
  function: {
    name: ASK_USER,
    description: 'Ask the person running this deliberation a question and wait for the answer.',
    parameters: {
      type: 'object',
      properties: { question: { type: 'string' }, options: { type: 'array', items: { type: 'string' } } },
      required: ['question'],
    },
  },
};

const SHAPE_HINT =
  'each tool is {"type":"function","function":{"name":...,"parameters":{...}},"command":["prog","arg"]}';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function positive(v: unknown, what: string, where: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
    throw usageError(`${where}: ${what} must be a positive number`, SHAPE_HINT);
  return v;
}

/** One entry of a tools file, checked field by field so the message names what is wrong and where. */
export function parseToolEntry(entry: unknown, where: string): DeclaredTool {
  if (!isRecord(entry)) throw usageError(`${where} is not an object`, SHAPE_HINT);
  const fn = entry['function'];
  if (!isRecord(fn) || typeof fn['name'] !== 'string' || fn['name'] === '')
    throw usageError(`${where} has no function name`, SHAPE_HINT);
  const name = fn['name'];
  if (!NAME.test(name))
    throw usageError(
      `${where}: tool name '${name.slice(0, 40)}' may use only letters, digits, '-' and '_' (64 at most)`,
    );
  if (fn['parameters'] !== undefined && !isRecord(fn['parameters']))
    throw usageError(`${where} (${name}): parameters must be a JSON Schema object`);
  const definition: ToolDefinition = { type: 'function', function: { name } };
  if (typeof fn['description'] === 'string') definition.function.description = fn['description'];
  if (isRecord(fn['parameters'])) definition.function.parameters = fn['parameters'];
  const raw = entry['command'];
  if (raw === undefined) return { definition };
  if (typeof raw === 'string') {
    throw usageError(
      `${where} (${name}): command must be an argv array, not a string`,
      `e.g. "command": ["node", "calc.js"]; no shell is involved`,
    );
  }
  if (
    !Array.isArray(raw) ||
    raw.length === 0 ||
    !raw.every((a): a is string => typeof a === 'string') ||
    raw[0] === ''
  ) {
    throw usageError(`${where} (${name}): command must be a non-empty array of strings`, SHAPE_HINT);
  }
  const timeoutS = positive(entry['timeout'], 'timeout (seconds)', `${where} (${name})`) ?? DEFAULT_TIMEOUT_S;
  const maxOutputBytes =
    positive(entry['max_output_bytes'], 'max_output_bytes', `${where} (${name})`) ?? DEFAULT_MAX_OUTPUT_BYTES;
  return {
    definition,
    command: { argv: [...raw], timeoutMs: Math.round(timeoutS * 1000), maxOutputBytes: Math.floor(maxOutputBytes) },
  };
}

/** A tools file: an array of tools, or `{"tools": [...]}`. */
export function parseToolsFile(text: string, file: string): DeclaredTool[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw usageError(`--tools ${file} is not valid JSON`, SHAPE_HINT);
  }
  const list = Array.isArray(parsed) ? parsed : isRecord(parsed) ? parsed['tools'] : undefined;
  if (!Array.isArray(list)) throw usageError(`--tools ${file} holds no array of tools`, SHAPE_HINT);
  return list.map((t, i) => parseToolEntry(t, `tool ${i + 1} in ${file}`));
}

/**
 * `--tool NAME=PROGRAM`: PROGRAM runs with no arguments and reads the call's arguments as JSON
 * on stdin. The council is told nothing about parameters, so it sends what it thinks fit.
 */
export function parseToolFlag(spec: string): DeclaredTool {
  const eq = spec.indexOf('=');
  const name = eq === -1 ? '' : spec.slice(0, eq);
  const program = eq === -1 ? '' : spec.slice(eq + 1);
  if (name === '' || program === '')
    throw usageError(`--tool '${spec.slice(0, 60)}' is not NAME=PROGRAM`, 'e.g. --tool calculator=./calc.js');
  if (!NAME.test(name))
    throw usageError(`--tool: tool name '${name.slice(0, 40)}' may use only letters, digits, '-' and '_'`);
  return {
    definition: {
      type: 'function',
      // The program's path is this machine's business: the orchestrator is told the name only.
      function: { name, description: `the local tool ${name}`, parameters: { type: 'object' } },
    },
    command: { argv: [program], timeoutMs: DEFAULT_TIMEOUT_S * 1000, maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES },
  };
}

/** Joins the sources; a name declared twice is refused rather than silently shadowed. */
export function declareTools(
  fromFile: DeclaredTool[],
  fromFlags: DeclaredTool[],
  askUser: boolean,
  maxCalls = DEFAULT_MAX_TOOL_CALLS,
): DeclaredTools {
  const tools = new Map<string, DeclaredTool>();
  for (const t of [...fromFile, ...fromFlags]) {
    const name = t.definition.function.name;
    if (tools.has(name) || (askUser && name === ASK_USER))
      throw usageError(`tool '${name}' is declared twice`, 'give each tool one declaration');
    tools.set(name, t);
  }
  return { tools, askUser, maxCalls };
}

/** What the council is offered, in the compat shape (`tools`). */
export function offeredDefinitions(d: DeclaredTools): ToolDefinition[] {
  const defs = [...d.tools.values()].map((t) => t.definition);
  return d.askUser ? [...defs, ASK_USER_DEFINITION] : defs;
}

/** The native shape (`user_tools`): name, description, parameters. */
export function userToolsOf(defs: readonly ToolDefinition[]): UserTool[] {
  return defs.map((d) => {
    const t: UserTool = { name: d.function.name };
    if (d.function.description !== undefined) t.description = d.function.description;
    if (d.function.parameters !== undefined) t.parameters = d.function.parameters;
    if (d.function.name === ASK_USER) t.strict = false;
    return t;
  });
}

/**
 * The declared name a call refers to. Agents see offered tools with a `user_` prefix and may
 * call them by that name, so the prefix is dropped when only the bare name is declared.
 */
export function declaredNameOf(d: DeclaredTools, called: string): string | undefined {
  const known = (n: string): boolean => d.tools.has(n) || (d.askUser && n === ASK_USER);
  if (known(called)) return called;
  if (called.startsWith('user_') && known(called.slice(5))) return called.slice(5);
  return undefined;
}
