import { readFile } from 'node:fs/promises';
import type { Argv } from 'yargs';
import { usageError } from '../../errors.js';
import type { ToolDefinition } from '../../protocol/wire.js';
import type { Council } from '../../session/model.js';

/** Options of every command that runs a turn (design.md §3). */
export interface TurnOptions {
  policy: string | undefined;
  system: string | undefined;
  title: string | undefined;
  stream: boolean;
  agents: string[] | undefined;
  rounds: number | undefined;
  toolsFile: string | undefined;
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
    .option('tools', { type: 'string', describe: 'JSON file with OpenAI function tools to offer the council' });
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
  };
}

/**
 * The council a turn runs with: the flags, else what the session recorded. A session started
 * with --agents/--rounds keeps that council for `continue` and `fork` until a flag changes it.
 */
export function withRecordedCouncil(opts: TurnOptions, recorded: Council | undefined): TurnOptions {
  return { ...opts, agents: opts.agents ?? recorded?.agents, rounds: opts.rounds ?? recorded?.rounds };
}

/** What a session records of a turn's council; undefined when no council was chosen. */
export function councilOf(opts: TurnOptions): Council | undefined {
  if (opts.agents === undefined && opts.rounds === undefined) return undefined;
  return { ...(opts.agents === undefined ? {} : { agents: opts.agents }), ...(opts.rounds === undefined ? {} : { rounds: opts.rounds }) };
}

/** --tools FILE: an array of OpenAI function tools (or `{"tools": [...]}`). */
export async function loadTools(file: string | undefined): Promise<ToolDefinition[] | undefined> {
  if (file === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? 'not valid JSON';
    throw usageError(`cannot read --tools ${file}: ${why}`, 'give a JSON array of {"type":"function","function":{"name":...}} objects');
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(list)) throw usageError(`--tools ${file} holds no array of tools`);
  return list.map((t, i) => {
    const fn = (t as { function?: { name?: unknown } } | null)?.function;
    if (typeof fn?.name !== 'string' || fn.name === '') throw usageError(`tool #${i + 1} in ${file} has no function name`);
    return t as ToolDefinition;
  });
}
