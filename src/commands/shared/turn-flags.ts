import { usageError } from '../../errors.js';
import { parseMaxCost, parseMaxTokens, type TurnCap } from '../../spend-cap.js';
import { DEFAULT_MAX_TOOL_CALLS } from '../../tools/declared.js';
import type { ReportOptions } from '../../turn/reports/report-options.js';
import type { TurnOptions } from '../../turn/turn-options.js';
import { AGENT_NAME, commaList } from '../../protocol/council-names.js';
import { ROUNDS_RULE } from '../../protocol/number-rule.js';
import type { ParsedArgv } from '../command.js';
import { flagValues, type FlagDef } from './flag-def.js';
import { parseReportOptions, REPORT_FLAGS } from './report-flags.js';

// Declared `as const` so that parseTurnOptions reads each flag typed from its entry (FlagValues).
const CORE = [
  {
    name: 'policy',
    shapesRequest: true,
    alias: 'p',
    type: 'string',
    env: 'NSED_POLICY',
    configKey: 'policy',
    describe: 'policy = model: a tag (deep), nsed:<tag>, or a 64-hex policy id (default *)',
    emptyHint: 'e.g. -p deep',
    valueName: 'POLICY',
    complete: 'policy',
    sample: 'nsed:fast',
  },
  {
    name: 'model',
    shapesRequest: true,
    alias: 'm',
    type: 'string',
    describe: 'a model sent exactly as given, for any OpenAI-compatible server (not with -p)',
    emptyHint: 'e.g. -m gpt-4o-mini',
    sample: 'llama3.2',
  },
  {
    name: 'system',
    shapesRequest: true,
    type: 'string',
    describe: 'system instructions for the council',
    valueName: 'TEXT',
  },
  {
    name: 'title',
    type: 'string',
    describe: 'session title (default: the first words of the prompt)',
    valueName: 'TEXT',
  },
  {
    name: 'save',
    type: 'boolean',
    default: true,
    describe: 'record the turn (--no-save: run and print it, write nothing to the store)',
  },
  {
    name: 'stream',
    type: 'boolean',
    default: true,
    describe: 'stream the deliberation (--no-stream waits for one JSON answer)',
  },
  {
    name: 'agents',
    shapesRequest: true,
    type: 'string',
    configKey: 'agents',
    describe: 'choose the council: A,B,C (native /deliberation path)',
    valueName: 'A,B,C',
    sample: 'CortexA,CortexB',
  },
  {
    name: 'rounds',
    shapesRequest: true,
    type: 'number',
    ...ROUNDS_RULE,
    configKey: 'rounds',
    describe: 'deliberation rounds (native /deliberation path)',
  },
  {
    name: 'tools',
    shapesRequest: true,
    type: 'string',
    describe: 'JSON file of tools to offer the council; a tool with a "command" argv runs when called',
    valueName: 'FILE',
    complete: 'file',
    sample: 'tools.json',
  },
  {
    name: 'tool',
    shapesRequest: true,
    type: 'string',
    repeatable: true,
    describe: 'offer a tool that runs PROGRAM (arguments as JSON on stdin): NAME=PROGRAM, repeatable',
    valueName: 'NAME=PROGRAM',
    sample: 'calculator=./calc.js',
  },
  {
    name: 'ask-user',
    shapesRequest: true,
    type: 'boolean',
    describe: 'offer the ask_user tool: the council may ask you a question',
  },
  {
    name: 'max-tool-calls',
    type: 'number',
    integer: true,
    min: 0,
    max: 1000,
    describe: `tool calls nsed runs per turn before refusing more (default ${DEFAULT_MAX_TOOL_CALLS})`,
    valueName: 'N',
  },
  // The spend cap (src/spend-cap.ts) is a ceiling on what a turn spends, not a part of what it
  // asks: the same question under another cap is the same request, so none of these shapes it.
  {
    name: 'max-cost',
    type: 'number',
    env: 'NSED_MAX_COST',
    configKey: 'max_cost',
    describe:
      'a ceiling of USD dollars: before each round, cancel the deliberation if it would pass it, and exit 15 (a cap can be exceeded by at most the round in flight)',
    details:
      "Before each round nsed weighs what was spent (the stream's usage, else GET /deliberation/{id}/budget) plus what the round is expected to cost (the rounds so far, else the estimate from GET /agents) against USD, and cancels the deliberation on the orchestrator at that boundary; a deliberation whose first round's estimate alone passes USD is not sent (exit 15). A meter that is late or not believable falls back to the estimate, and says so. A server that cannot meter is refused before anything is sent (exit 2), unless --allow-unmetered (then one warning says the cap cannot act). Not --max-cost-gate, which judges a completed turn's cost.",
    valueName: 'USD',
    sample: '0.5',
  },
  {
    name: 'max-tokens',
    type: 'number',
    env: 'NSED_MAX_TOKENS',
    configKey: 'max_tokens',
    describe:
      'a ceiling of N tokens (in plus out): before each round, cancel the deliberation if it would pass it, and exit 15 (a cap can be exceeded by at most the round in flight)',
    valueName: 'N',
    sample: '20000',
  },
  {
    name: 'allow-unmetered',
    type: 'boolean',
    describe:
      'run under --max-cost/--max-tokens even where the server reports no usage (one warning says the cap cannot stop it)',
  },
] as const satisfies readonly FlagDef[];

/** The flags of one turn, without its CI reports: batch writes its own, one entry per item. */
export const CORE_TURN_FLAGS: readonly FlagDef[] = CORE;

/** The turn flags of ask, continue and fork: one shared group each command spreads into its table. */
export const TURN_FLAGS: readonly FlagDef[] = [...CORE_TURN_FLAGS, ...REPORT_FLAGS];

/** -m sends a model as given, -p names a policy: one turn has one of them. */
export const TURN_CONFLICTS: ReadonlyArray<readonly [string, string]> = [['model', 'policy']];

/** The turn flags of ask, continue and fork, checked; a bad value is a usage error. */
export function parseTurnOptions(argv: ParsedArgv): TurnOptions {
  const f = flagValues(CORE, argv);
  let agents: string[] | undefined;
  if (f.agents !== undefined) {
    agents = commaList(f.agents);
    const bad = agents.find((a) => !AGENT_NAME.test(a));
    if (bad !== undefined)
      throw usageError(
        `invalid agent name '${bad.slice(0, 40)}' in --agents`,
        "agent names use letters, digits, '-' and '_'",
      );
    if (agents.length < 2)
      throw usageError('--agents needs at least two agent names', 'e.g. --agents CortexA,CortexB,CortexC');
  }
  const { policy, model } = f;
  if (model !== undefined && policy !== undefined)
    throw usageError('-m/--model and -p/--policy are exclusive', '-p deep sends nsed:deep; -m sends its name as given');
  // --agents chooses the council itself: a policy beside it would be recorded and not used.
  if (agents !== undefined && (policy !== undefined || model !== undefined))
    throw usageError(
      `--agents chooses the council itself; it does not go with ${policy !== undefined ? '-p/--policy' : '-m/--model'}`,
      "-p deep runs the policy's own council (--rounds N changes its rounds); --agents A,B runs those agents",
    );
  const reports = reportsOf(argv);
  if (f.save === false && reports.reports?.sessionIdFile !== undefined)
    throw usageError(
      '--session-id-file names the session, which --no-save does not keep',
      'drop --no-save, or read the answer from -o json',
    );
  return {
    policy,
    model,
    system: f.system,
    title: f.title,
    stream: f.stream,
    save: f.save,
    agents,
    rounds: f.rounds,
    toolsFile: f.tools,
    // Repeatable, one value per occurrence: a yargs array would swallow the prompt words after it.
    toolFlags: f.tool,
    askUser: f['ask-user'] === true,
    maxToolCalls: f['max-tool-calls'] ?? DEFAULT_MAX_TOOL_CALLS,
    ...capOf(argv),
    ...reports,
  };
}

/**
 * The cap the flags set. NSED_MAX_COST, NSED_MAX_TOKENS and the config keys are settings
 * (RunSettings), which the turn applies where no flag is given.
 */
function capOf(argv: ParsedArgv): { cap?: TurnCap } {
  const cost = argv['max-cost'];
  const tokens = argv['max-tokens'];
  const cap: TurnCap = {
    ...(cost === undefined ? {} : { maxCostUsd: parseMaxCost(cost, '--max-cost') }),
    ...(tokens === undefined ? {} : { maxTokens: parseMaxTokens(tokens, '--max-tokens') }),
    ...(argv['allow-unmetered'] === true ? { allowUnmetered: true } : {}),
  };
  return Object.keys(cap).length === 0 ? {} : { cap };
}

function reportsOf(argv: ParsedArgv): { reports?: ReportOptions } {
  const reports = parseReportOptions(argv);
  return reports === undefined ? {} : { reports };
}
