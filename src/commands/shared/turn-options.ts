import { readFile } from 'node:fs/promises';
import type { Argv } from 'yargs';
import { usageError } from '../../errors.js';
import type { ToolDefinition } from '../../protocol/wire.js';
import {
  ASK_USER,
  DEFAULT_MAX_TOOL_CALLS,
  declareTools,
  parseToolFlag,
  parseToolsFile,
  type DeclaredTool,
  type DeclaredTools,
} from '../../tools/declared.js';

/** Options of every command that runs a turn (design.md §3). */
export interface TurnOptions {
  policy: string | undefined;
  system: string | undefined;
  title: string | undefined;
  stream: boolean;
  agents: string[] | undefined;
  rounds: number | undefined;
  toolsFile: string | undefined;
  /** `--tool NAME=PROGRAM`, repeatable. */
  toolFlags: string[];
  askUser: boolean;
  maxToolCalls: number;
}

const AGENT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function withTurnOptions(y: Argv): Argv {
  return y
    .option('policy', { alias: 'p', type: 'string', describe: 'policy = model: a tag (deep), nsed:<tag>, or a 64-hex policy id (env NSED_POLICY; default *)' })
    .option('system', { type: 'string', describe: 'system instructions for the council' })
    .option('title', { type: 'string', describe: 'session title (default: the first words of the prompt)' })
    .option('stream', { type: 'boolean', default: true, describe: 'stream the deliberation (--no-stream waits for one JSON answer)' })
    .option('agents', { type: 'string', describe: 'choose the council: A,B,C (native /deliberation path)' })
    .option('rounds', { type: 'number', describe: 'deliberation rounds (native /deliberation path)' })
    .option('tools', { type: 'string', describe: 'JSON file of tools to offer the council; a tool with a "command" argv runs when called' })
    .option('tool', { type: 'string', describe: 'offer a tool that runs PROGRAM (arguments as JSON on stdin): NAME=PROGRAM, repeatable' })
    .option('ask-user', { type: 'boolean', describe: 'offer the ask_user tool: the council may ask you a question' })
    .option('max-tool-calls', { type: 'number', describe: `tool calls nsed runs per turn before refusing more (default ${DEFAULT_MAX_TOOL_CALLS})` });
}

export function toTurnOptions(argv: Record<string, unknown>): TurnOptions {
  const str = (k: string): string | undefined => (typeof argv[k] === 'string' ? (argv[k] as string) : undefined);
  let agents: string[] | undefined;
  const rawAgents = str('agents');
  if (rawAgents !== undefined) {
    agents = rawAgents.split(',').map((a) => a.trim()).filter((a) => a !== '');
    const bad = agents.find((a) => !AGENT_NAME.test(a));
    if (bad !== undefined) throw usageError(`invalid agent name '${bad.slice(0, 40)}' in --agents`, "agent names use letters, digits, '-' and '_'");
    if (agents.length < 2) throw usageError('--agents needs at least two agent names', 'e.g. --agents CortexA,CortexB,CortexC');
  }
  let rounds: number | undefined;
  if (argv['rounds'] !== undefined) {
    rounds = argv['rounds'] as number;
    if (!Number.isInteger(rounds) || rounds < 1 || rounds > 100) throw usageError('--rounds must be a whole number from 1 to 100');
  }
  const policy = str('policy');
  if (policy !== undefined && policy.trim() === '') throw usageError('--policy is empty', 'e.g. -p deep');
  return {
    policy,
    system: str('system'),
    title: str('title'),
    stream: argv['stream'] !== false,
    agents,
    rounds,
    toolsFile: str('tools'),
    // Not a yargs array (that would swallow the prompt words after it); repeats still collect.
    toolFlags: repeated(argv['tool']),
    askUser: argv['ask-user'] === true,
    maxToolCalls: maxToolCalls(argv['max-tool-calls']),
  };
}

/** The tools a session offered before, with nothing to run: their calls wait for an answer. */
export function recordedTools(recorded: readonly ToolDefinition[] | undefined, maxCalls = DEFAULT_MAX_TOOL_CALLS): DeclaredTools | undefined {
  if (recorded === undefined || recorded.length === 0) return undefined;
  const plain = recorded.filter((d) => d.function.name !== ASK_USER).map((definition) => ({ definition }));
  return declareTools(plain, [], recorded.some((d) => d.function.name === ASK_USER), maxCalls);
}

/** A repeatable string option: one value, several, or none. */
export const repeated = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : []);

function maxToolCalls(v: unknown): number {
  if (v === undefined) return DEFAULT_MAX_TOOL_CALLS;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 1000) throw usageError('--max-tool-calls must be a whole number from 0 to 1000');
  return v;
}

/** Whether this invocation declares tools (otherwise a session's recorded ones are offered again). */
export const declaresTools = (o: TurnOptions): boolean => o.toolsFile !== undefined || o.toolFlags.length > 0 || o.askUser;

/**
 * The tools of this invocation: --tools FILE, --tool NAME=PROGRAM and --ask-user. Without any,
 * the tools a session offered before are offered again, with nothing to run: a call is then
 * answered with --tool-result (only tools declared on this command line ever run).
 */
export async function loadDeclaredTools(o: TurnOptions, recorded: readonly ToolDefinition[] | undefined): Promise<DeclaredTools | undefined> {
  if (!declaresTools(o)) return recordedTools(recorded, o.maxToolCalls);
  let fromFile: DeclaredTool[] = [];
  if (o.toolsFile !== undefined) {
    let text: string;
    try {
      text = await readFile(o.toolsFile, 'utf8');
    } catch (err) {
      throw usageError(`cannot read --tools ${o.toolsFile}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
    }
    fromFile = parseToolsFile(text, o.toolsFile);
  }
  return declareTools(fromFile, o.toolFlags.map(parseToolFlag), o.askUser, o.maxToolCalls);
}
