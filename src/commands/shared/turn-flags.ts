import { usageError } from '../../errors.js';
import type { TurnCap } from '../../council/spend-cap.js';
import { DEFAULT_MAX_TOOL_CALLS } from '../../tools/declared.js';
import type { ReportOptions } from '../../turn/reports/report-options.js';
import type { TurnOptions } from '../../turn/turn-options.js';
import type { ParsedArgv } from '../command.js';
import { givenByFlag, type RunSettings } from '../../run/settings.js';
import { flagValues, type FlagDef } from './flag-def.js';
import { AGENTS_FLAG, MAX_COST_FLAG, MAX_TOKENS_FLAG, ownFlags, POLICY_FLAG, ROUNDS_FLAG } from './setting-flags.js';
import { parseReportOptions, REPORT_FLAGS } from './report-flags.js';

// Declared `as const` so that parseTurnOptions reads each flag typed from its entry (FlagValues).
const CORE = [
  POLICY_FLAG,
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
  AGENTS_FLAG,
  ROUNDS_FLAG,
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
  // The spend cap: a ceiling on what a turn spends, not a part of what it asks (setting-flags.ts).
  MAX_COST_FLAG,
  MAX_TOKENS_FLAG,
  {
    name: 'allow-unmetered',
    type: 'boolean',
    describe:
      'run under --max-cost/--max-tokens even where the server reports no usage (one warning says the cap cannot stop it)',
  },
] as const satisfies readonly FlagDef[];

/** The flags of one turn, without its CI reports: batch writes its own, one entry per item. */
export const CORE_TURN_FLAGS: readonly FlagDef[] = CORE;

/** The turn flags parseTurnOptions reads from the words: the settings among them are the settings' (ownFlags). */
const OWN = ownFlags(CORE);

/** The settings a turn's own council and cap are taken from, where its command line's flags gave them. */
export type TurnSettings = Pick<RunSettings, 'policy' | 'agents' | 'rounds' | 'maxCostUsd' | 'maxTokens'>;

/** The turn flags of ask, continue and fork: one shared group each command spreads into its table. */
export const TURN_FLAGS: readonly FlagDef[] = [...CORE_TURN_FLAGS, ...REPORT_FLAGS];

/** -m sends a model as given, -p names a policy: one turn has one of them. */
export const TURN_CONFLICTS: ReadonlyArray<readonly [string, string]> = [['model', 'policy']];

/**
 * The turn flags of ask, continue and fork, checked; a bad value is a usage error. -p, --agents,
 * --rounds, --max-cost and --max-tokens are settings, read once and checked by their rule where
 * the settings are resolved: the turn's own are those its flags gave (givenByFlag), and what the
 * environment or the config file gave stays the settings' to weigh (councilChoice, turnCapOf).
 */
export function parseTurnOptions(argv: ParsedArgv, settings: TurnSettings): TurnOptions {
  const f = flagValues(OWN, argv);
  const policy = givenByFlag(settings.policy);
  const agents = givenByFlag(settings.agents);
  const { model } = f;
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
    rounds: givenByFlag(settings.rounds),
    toolsFile: f.tools,
    // Repeatable, one value per occurrence: a yargs array would swallow the prompt words after it.
    toolFlags: f.tool,
    askUser: f['ask-user'] === true,
    maxToolCalls: f['max-tool-calls'] ?? DEFAULT_MAX_TOOL_CALLS,
    ...capOf(givenByFlag(settings.maxCostUsd), givenByFlag(settings.maxTokens), f['allow-unmetered'] === true),
    ...reports,
  };
}

/**
 * The cap the flags set. NSED_MAX_COST, NSED_MAX_TOKENS and the config keys are settings of the
 * run, which the turn applies where no flag is given (turnCapOf).
 */
function capOf(
  maxCostUsd: number | undefined,
  maxTokens: number | undefined,
  allowUnmetered: boolean,
): { cap?: TurnCap } {
  const cap: TurnCap = {
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(allowUnmetered ? { allowUnmetered: true } : {}),
  };
  return Object.keys(cap).length === 0 ? {} : { cap };
}

function reportsOf(argv: ParsedArgv): { reports?: ReportOptions } {
  const reports = parseReportOptions(argv);
  return reports === undefined ? {} : { reports };
}
