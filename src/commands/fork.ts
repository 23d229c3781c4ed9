import { usageError } from '../errors.js';
import { savingAs } from '../run/context.js';
import type { TurnOptions } from '../turn/turn-options.js';
import type { CommandDef } from './command.js';
import { flagValues, positionalValues, type FlagDef, type PositionalDef } from './shared/flag-def.js';
import { GATE_FLAGS, loadGates, parseGateFlags, type GateRequest } from './shared/gate-flags.js';
import type { InputOptions } from '../input/turn-input.js';
import { INPUT_FLAGS, parseInputOptions } from './shared/input-flags.js';
import { promptWords } from '../input/prompt.js';
import { parseTurnOptions, TURN_CONFLICTS, TURN_FLAGS } from './shared/turn-flags.js';
import { ESTIMATE_FLAG, parseEstimate } from './shared/estimate-flag.js';

export interface ForkOptions {
  /** The parent session: an id or a unique prefix. */
  source: string;
  /** The last turn to keep, as given (an id, a 1-based index, or negative from the end). */
  at: string | undefined;
  /** Words of a prompt to run on the fork at once; empty: only create it and print its id. */
  prompt: string[];
  turn: TurnOptions;
  /** -f, --schema, --template and their companions (with a prompt only). */
  input: InputOptions;
  gates: GateRequest;
  /** --estimate: print what a turn on the fork may cost; no fork is made and nothing is sent. */
  estimate?: boolean;
}

const POSITIONALS = [
  { name: 'source', describe: 'the session to branch from (id or unique prefix)', complete: 'session' },
  { name: 'prompt', array: true, describe: 'a prompt to run on the fork at once (- for stdin)' },
] as const satisfies readonly PositionalDef[];

const FLAGS = [
  {
    name: 'at',
    type: 'string',
    describe: 'last turn to keep: a turn id, a 1-based index, or a negative index from the end (default: all)',
    valueName: 'TURN',
    sample: '2',
  },
] as const satisfies readonly FlagDef[];

/**
 * `nsed fork SESSION [PROMPT...] [--at TURN]`: a new session holding SESSION's turns up to TURN,
 * with its own conversation id (a branch never resumes its parent's agent sessions). The parent
 * file is only read, so parallel forks never contend.
 */
export const fork: CommandDef<ForkOptions> = {
  command: 'fork [source] [prompt..]',
  describe: "new session from SESSION's turns up to --at TURN; prints its id, or runs PROMPT on it",
  positionals: POSITIONALS,
  flags: [...TURN_FLAGS, ...FLAGS, ...INPUT_FLAGS, ...GATE_FLAGS, ESTIMATE_FLAG],
  conflicts: TURN_CONFLICTS,
  examples: [
    ['nsed fork 20261130 --at 2', 'branch after the second turn; prints the new id'],
    ['nsed fork 20261130 --at -2 "try it with Redis instead"', 'branch and ask at once'],
  ],
  parse: (argv, settings) => {
    // `nsed fork -- ID -x…`: after `--` the first word is the source, as a positional before it would be.
    const p = positionalValues(POSITIONALS, argv);
    const words = promptWords(p.source, [...p.prompt, ...p['--']]);
    const [source, ...prompt] = words;
    if (source === undefined || source === '-')
      throw usageError('name the session to fork', "list sessions with 'nsed sessions ls'");
    const opts = {
      turn: parseTurnOptions(argv, settings),
      source,
      at: flagValues(FLAGS, argv).at,
      prompt,
      input: parseInputOptions(argv),
      gates: parseGateFlags(argv),
      ...(parseEstimate(argv) ? { estimate: true } : {}),
    };
    const r = opts.turn.reports;
    if (
      opts.prompt.length === 0 &&
      r !== undefined &&
      (r.summary !== undefined || r.junit !== undefined || r.html !== undefined || r.annotate)
    )
      throw usageError(
        '--summary, --junit, --html and --annotate report a turn: give fork a PROMPT',
        'e.g. nsed fork ID --junit nsed.xml "try again"',
      );
    return opts;
  },
  run: async (opts, given) => {
    const ctx = await savingAs(given, opts.turn.save);
    await (await import('../turn/reports/report-options.js')).checkReportFiles(opts.turn.reports);
    const [{ resolveTurnRef }, { createSession, startSession }, { withRecordedCouncil }, turnInput] = await Promise.all(
      [
        import('../session/index.js'),
        import('../turn/start-session.js'),
        import('../turn/turn-options.js'),
        import('../input/turn-input.js'),
      ],
    );
    // --estimate reads no input: the council, not the prompt, says what a turn costs.
    const prompted = opts.estimate !== true && turnInput.namesPrompt(opts.prompt, opts.input);
    if (opts.estimate !== true && !prompted) turnInput.assertNoInputWithoutPrompt(opts.input);
    const input = prompted ? await turnInput.prepareTurnInput(opts.prompt, opts.input, opts.turn, ctx) : undefined;
    const store = await ctx.store();
    // With the rounds: the fork's copies of the parent's answers keep theirs, in the fork's own files.
    const parent = await store.read(await store.resolve(opts.source), { rounds: true });
    const at = opts.at !== undefined ? resolveTurnRef(parent, opts.at) : parent.turns.length - 1;
    const turns = parent.turns.slice(0, at + 1).map((t) => structuredClone(t));
    const forkedFrom = { session: parent.id, turn: turns.at(-1)?.id ?? null };
    const title = `${parent.title} (fork)`;
    // The fork keeps the parent's model, system, council and offered tools unless this command names
    // its own; the parent's model string is kept as sent, so a plain server's model never gains a
    // prefix.
    const own = withRecordedCouncil(input?.turn ?? opts.turn, parent.council);
    const named = own.policy !== undefined || own.model !== undefined;
    const inherited = { ...own, model: named ? own.model : parent.active_policy, system: own.system ?? parent.system };
    if (opts.estimate === true) {
      // The turn a prompt would run on the fork, priced: no fork is made, nothing is sent.
      const [{ printTurnEstimate }, { askedModel }] = await Promise.all([
        import('./shared/estimate-flag.js'),
        import('../turn/turn-options.js'),
      ]);
      return printTurnEstimate(ctx, parent.orchestrator, askedModel(inherited, ctx.globals.settings), inherited);
    }

    if (input === undefined) {
      const session = await createSession(ctx, {
        opts: inherited,
        orchestrator: parent.orchestrator,
        turns,
        forkedFrom,
        title,
        tools: parent.tools,
      });
      ctx.io.stdout.write(`${session.id}\n`);
      return 0;
    }

    const judged = { ...inherited, gates: await loadGates(opts.gates, ctx) };
    const { executeTurn } = await import('../turn/execute-turn.js');
    const conn = await ctx.connect(parent.orchestrator);
    try {
      const init = {
        prompt: input.prompt,
        attachments: input.attachments,
        opts: judged,
        orchestrator: conn.orchestrator,
        turns,
        forkedFrom,
        title,
        tools: parent.tools,
      };
      const { session, userTurnId } = await startSession(ctx, init);
      return (await executeTurn(ctx, conn, session, userTurnId, judged, { fresh: true })).exitCode;
    } finally {
      await conn.close();
    }
  },
};
