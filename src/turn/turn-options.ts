import { MAX_FLAG_FILE_BYTES, readInputText, type ReadBounds } from '../files/read-input.js';
import { toModel } from '../protocol/policy-ref.js';
import type { ToolDefinition } from '../protocol/wire.js';
import type { RunSettings } from '../run/settings.js';
import type { Council } from '../session/index.js';
import type { ReportOptions } from './reports/report-options.js';
import type { TurnCap } from '../council/spend-cap.js';
import type { Gates } from '../council/verdict.js';
import type { AnswerSchema } from './schema/answer-schema.js';
import {
  ASK_USER,
  DEFAULT_MAX_TOOL_CALLS,
  declareTools,
  parseToolFlag,
  parseToolsFile,
  type DeclaredTool,
  type DeclaredTools,
} from '../tools/declared.js';

/** Options of every command that runs a turn (ask, continue, fork). */
export interface TurnOptions {
  policy: string | undefined;
  /** -m: the model string sent as given (a plain OpenAI-compatible server); excludes `policy`. */
  model?: string | undefined;
  system: string | undefined;
  title: string | undefined;
  stream: boolean;
  /** false (--no-save): the turn runs and prints, and nothing is written to the store. */
  save?: boolean;
  agents: string[] | undefined;
  rounds: number | undefined;
  toolsFile: string | undefined;
  /** `--tool NAME=PROGRAM`, repeatable. */
  toolFlags: string[];
  askUser: boolean;
  maxToolCalls: number;
  /** --summary, --junit, --annotate: the CI reports of the turn. */
  reports?: ReportOptions;
  /** The gates the completed turn is judged against (read from the flags and a --gates file). */
  gates?: Gates | undefined;
  /** --schema, compiled: the answer must match it, or the council gets `retries` turns to fix it. */
  schema?: AnswerSchema;
  /** --max-cost, --max-tokens, --allow-unmetered (or an MCP tool's cost cap); settings fill what is absent. */
  cap?: TurnCap;
}

/**
 * The model a new session asks for, the one place its precedence is said: -m as given, else the
 * turn's policy (-p, a batch item's), else the policy setting (NSED_POLICY, the config file's,
 * `*`: the orchestrator's first) as `nsed:<tag>`.
 */
export function askedModel(opts: Pick<TurnOptions, 'model' | 'policy'>, settings: Pick<RunSettings, 'policy'>): string {
  return opts.model ?? toModel(opts.policy ?? settings.policy.value);
}

/**
 * The council a turn asks for: --agents and --rounds (or a batch item's, or what the session
 * recorded: withRecordedCouncil), else the council the settings decided (RunSettings.council:
 * the config file's agents and rounds, unless NSED_POLICY or -p named a policy for this run). A
 * policy this turn names (-p, a batch item's) chooses its own council, so the file's agents give
 * way to it. A model named with -m may be a plain OpenAI-compatible server, which has no council
 * at all: the file's council and rounds would send it to a deliberation endpoint it does not have.
 */
export function councilChoice(
  opts: Pick<TurnOptions, 'model' | 'policy' | 'agents' | 'rounds'>,
  settings: Pick<RunSettings, 'council'>,
): { agents: string[] | undefined; rounds: number | undefined } {
  if (opts.model !== undefined) return { agents: opts.agents, rounds: opts.rounds };
  const council = settings.council.value;
  const settingsAgents = council.kind === 'agents' && opts.policy === undefined ? council.agents : undefined;
  return { agents: opts.agents ?? settingsAgents, rounds: opts.rounds ?? council.rounds };
}

/**
 * The council a turn runs with: the flags, else what the session recorded. A session started
 * with --agents/--rounds keeps that council for `continue` and `fork` until a flag changes it;
 * a policy or model named for this turn (-p, -m) brings its own council, so the recorded one
 * gives way to it (else the policy would be recorded and silently not used).
 */
export function withRecordedCouncil(opts: TurnOptions, recorded: Council | undefined): TurnOptions {
  if (opts.policy !== undefined || opts.model !== undefined) return opts;
  return { ...opts, agents: opts.agents ?? recorded?.agents, rounds: opts.rounds ?? recorded?.rounds };
}

/** What a session records of a turn's council; undefined when no council was chosen. */
export function councilOf(opts: Partial<Pick<TurnOptions, 'agents' | 'rounds'>>): Council | undefined {
  if (opts.agents === undefined && opts.rounds === undefined) return undefined;
  return {
    ...(opts.agents === undefined ? {} : { agents: opts.agents }),
    ...(opts.rounds === undefined ? {} : { rounds: opts.rounds }),
  };
}

/** Whether this invocation declares tools (otherwise a session's recorded ones are offered again). */
export const declaresTools = (o: TurnOptions): boolean =>
  o.toolsFile !== undefined || o.toolFlags.length > 0 || o.askUser;

/** The tools a session offered before, with nothing to run: their calls wait for an answer. */
export function recordedTools(
  recorded: readonly ToolDefinition[] | undefined,
  maxCalls = DEFAULT_MAX_TOOL_CALLS,
): DeclaredTools | undefined {
  if (recorded === undefined || recorded.length === 0) return undefined;
  const plain = recorded.filter((d) => d.function.name !== ASK_USER).map((definition) => ({ definition }));
  return declareTools(
    plain,
    [],
    recorded.some((d) => d.function.name === ASK_USER),
    maxCalls,
  );
}

/**
 * The tools of this invocation: --tools FILE, --tool NAME=PROGRAM and --ask-user. Without any,
 * the tools a session offered before are offered again, with nothing to run: a call is then
 * answered with --tool-result (only tools declared on this command line ever run).
 */
export async function loadDeclaredTools(
  o: TurnOptions,
  recorded: readonly ToolDefinition[] | undefined,
  bounds: ReadBounds,
): Promise<DeclaredTools | undefined> {
  if (!declaresTools(o)) return recordedTools(recorded, o.maxToolCalls);
  let fromFile: DeclaredTool[] = [];
  if (o.toolsFile !== undefined) {
    // Read by the one reader of files a flag names (docs/usage.md "Files nsed reads").
    const text = await readInputText(o.toolsFile, { label: '--tools', maxBytes: MAX_FLAG_FILE_BYTES, ...bounds });
    fromFile = parseToolsFile(text, o.toolsFile);
  }
  return declareTools(fromFile, o.toolFlags.map(parseToolFlag), o.askUser, o.maxToolCalls);
}
