import { savingAs, type Context } from '../run/context.js';
import type { TurnResult } from '../turn/turn-result.js';
import type { TurnOptions } from '../turn/turn-options.js';
import type { CommandDef } from './command.js';
import { positionalValues, type PositionalDef } from './shared/flag-def.js';
import { GATE_FLAGS, loadGates, parseGateFlags, type GateRequest } from './shared/gate-flags.js';
import { IDEMPOTENCY_FLAGS, parseIdempotencyFlags, type IdempotencyOptions } from './shared/idempotency-flags.js';
import type { InputOptions } from '../input/turn-input.js';
import { INPUT_FLAGS, parseInputOptions } from './shared/input-flags.js';
import { promptWords } from '../input/prompt.js';
import { parseTurnOptions, TURN_CONFLICTS, TURN_FLAGS } from './shared/turn-flags.js';
import { ESTIMATE_FLAG, parseEstimate } from './shared/estimate-flag.js';

export interface AskOptions {
  /** The prompt's words as given; `-` stands for standard input, read only when the turn runs. */
  prompt: string[];
  turn: TurnOptions;
  gates: GateRequest;
  /** -f, --schema, --template and their companions. */
  input: InputOptions;
  /** --idempotency-key and --force; absent without a key. */
  idempotency?: IdempotencyOptions;
  /** --estimate: print what the turn may cost and send nothing. */
  estimate?: boolean;
}

const POSITIONALS = [
  {
    name: 'prompt',
    array: true,
    describe: 'the question; - reads stdin in its place; with no words a piped stdin is the prompt',
  },
] as const satisfies readonly PositionalDef[];

/** `nsed ask [PROMPT...]`: start a session and run its first turn. */
export const ask: CommandDef<AskOptions> = {
  command: 'ask [prompt..]',
  describe: 'start a session and run its first turn',
  flags: [...TURN_FLAGS, ...INPUT_FLAGS, ...GATE_FLAGS, ...IDEMPOTENCY_FLAGS, ESTIMATE_FLAG],
  conflicts: TURN_CONFLICTS,
  positionals: POSITIONALS,
  examples: [
    ['nsed ask -p deep "Design a cache" > answer.md', 'one-shot question, answer on stdout'],
    ['git diff | nsed ask "review this"', 'the words are the question, piped input its context (below it, fenced)'],
    [
      'nsed ask -f src/app.ts --schema review.schema.json -o final "Review this file"',
      'a file as context, a JSON answer checked against a schema',
    ],
    ['nsed ask --template review.md --var file=src/app.ts', 'the prompt from a template with variables'],
    ['nsed ask -m llama3.2 --url http://localhost:11434 "hello"', 'any OpenAI-compatible server: the model as given'],
    [
      'nsed ask --idempotency-key "$GITHUB_RUN_ID-$GITHUB_JOB-review" "Review this"',
      'a CI step that, re-run, follows or replays its deliberation instead of paying again',
    ],
    ['nsed ask --estimate -p deep "Design a cache"', 'what the turn is expected to cost; nothing is sent'],
  ],
  epilog:
    'Piped input (not a terminal) joins words given as context: the question, a blank line, the input in a fenced block.' +
    ' nsed waits at most 500 ms for its first byte; a silent stdin is then left unread, with a warning. Use - (or -f -) to wait for a slow producer.',
  fast: { positional: 'prompt' },
  parse: (argv, settings) => {
    const idempotency = parseIdempotencyFlags(argv);
    const p = positionalValues(POSITIONALS, argv);
    return {
      prompt: promptWords(p.prompt, p['--']),
      turn: parseTurnOptions(argv, settings),
      gates: parseGateFlags(argv),
      input: parseInputOptions(argv),
      ...(idempotency === undefined ? {} : { idempotency }),
      ...(parseEstimate(argv) ? { estimate: true } : {}),
    };
  },
  run: async (opts, given) => {
    if (opts.estimate === true) {
      // Before any input is read or any session made: the estimate needs the council, not the prompt.
      const [{ printTurnEstimate }, { askedModel }] = await Promise.all([
        import('./shared/estimate-flag.js'),
        import('../turn/turn-options.js'),
      ]);
      return printTurnEstimate(given, undefined, askedModel(opts.turn, given.globals.settings), opts.turn);
    }
    return (await askTurn(opts, given)).exitCode;
  },
};

/**
 * `ask`'s turn, to its result (src/turn/turn-result.ts): the command maps it to its exit code, and
 * the promptfoo provider (src/cli/promptfoo.ts) to promptfoo's response. A turn that ended on an
 * error throws it, carrying its result (`resultOf`).
 */
export async function askTurn(opts: AskOptions, given: Context): Promise<TurnResult> {
  const ctx = await savingAs(given, opts.turn.save);
  // A report file that could never be written is refused before a deliberation is spent on it.
  await (await import('../turn/reports/report-options.js')).checkReportFiles(opts.turn.reports);
  const [{ prepareTurnInput }, { startSession }, { executeTurn }] = await Promise.all([
    import('../input/turn-input.js'),
    import('../turn/start-session.js'),
    import('../turn/execute-turn.js'),
  ]);
  const input = await prepareTurnInput(opts.prompt, opts.input, opts.turn, ctx);
  const { prompt, attachments } = input;
  const turn = { ...input.turn, gates: await loadGates(opts.gates, ctx) };
  await ctx.store();
  const conn = await ctx.connect();
  try {
    const keyed = opts.idempotency;
    if (keyed !== undefined) {
      // Only a keyed run pays for hashing (node:crypto): the plain ask path stays light.
      const { runKeyed } = await import('../turn/idempotency.js');
      return await runKeyed(ctx, conn, keyed, { prompt, attachments, turn });
    }
    const { session, userTurnId } = await startSession(ctx, {
      prompt,
      attachments,
      opts: turn,
      orchestrator: conn.orchestrator,
    });
    return await executeTurn(ctx, conn, session, userTurnId, turn, { fresh: true });
  } finally {
    await conn.close();
  }
}
