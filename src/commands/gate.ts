import type { Context } from '../run/context.js';
import { ExitCode, NsedError, markReported, usageError, type ErrorCode, type ExitCodeValue } from '../errors.js';
import { oneLine } from '../terminal/sanitize.js';
import type { Usage } from '../council/usage.js';
import type { CouncilVerdict } from '../council/verdict.js';
import type { CommandDef } from './command.js';
import { flagValues, type FlagDef } from './shared/flag-def.js';
import {
  GATE_FLAGS,
  gateFlagList,
  hasGates,
  loadGates,
  parseGateFlags,
  type GateRequest,
} from './shared/gate-flags.js';
import { MAX_STDIN_BYTES, STDIN_MARKER, readFlagFile, readStdin } from '../input/prompt.js';
import { parseReportOptions, REPORT_FLAGS } from './shared/report-flags.js';
import {
  parseSessionTarget,
  readTarget,
  SESSION_TARGET_CONFLICTS,
  SESSION_TARGET_TABLE,
  type SessionTarget,
} from './shared/session-target.js';

const FLAGS = [
  ...SESSION_TARGET_TABLE,
  {
    name: 'turn',
    type: 'string',
    describe:
      'the assistant turn to judge: an id, a 1-based index, or negative from the end (default: the last answer)',
    valueName: 'TURN',
    sample: '-1',
  },
  {
    name: 'from',
    type: 'string',
    describe: 'a saved -o json object to judge instead of a session (- for stdin)',
    valueName: 'FILE',
    complete: 'file',
    sample: 'turn.json',
  },
] as const satisfies readonly FlagDef[];

export interface GateOptions {
  /** --github-output FILE (else `$GITHUB_OUTPUT` under GitHub Actions): the step outputs. */
  githubOutput?: string | undefined;
  /** A recorded turn (-s ID | --last, --turn N), or a saved `-o json` object (--from FILE|-). */
  source: { kind: 'session'; target: SessionTarget; turn: string | undefined } | { kind: 'file'; path: string };
  gates: GateRequest;
}

/**
 * `nsed gate`: judges a verdict already recorded (a session's turn) or saved (`-o json` on stdin
 * or in a file) against the gate flags, offline: nothing is sent to any server. Deliberate once,
 * gate twice; or gate a run made with --no-save. Exits 0, 12 (failed) or 13 (inconclusive).
 */
export const gate: CommandDef<GateOptions> = {
  command: 'gate',
  describe: "judge a recorded turn's verdict, or a saved -o json object, against gates (offline)",
  flags: [...FLAGS, ...GATE_FLAGS, ...REPORT_FLAGS.filter((f) => f.name === 'github-output')],
  conflicts: SESSION_TARGET_CONFLICTS,
  examples: [
    ['nsed gate --last --max-wrong 0 --min-convergence 0.8', "judge the latest session's last answer"],
    ['nsed ask -o json --no-save "q" > turn.json; nsed gate --from turn.json --gates gates.json', 'judge a saved run'],
  ],
  epilog:
    'Prints one line per check (✓ passed, ✗ failed, ? not reported by the server); -o json prints the gate result.',
  parse: (argv) => {
    const gates = parseGateFlags(argv);
    if (!hasGates(gates)) throw usageError('name at least one gate', `${gateFlagList()}, or --gates FILE`);
    const f = flagValues(FLAGS, argv);
    const { from, turn } = f;
    const named = f.session !== undefined || f.last === true;
    const githubOutput = parseReportOptions(argv)?.githubOutput;
    if (from !== undefined) {
      if (named || turn !== undefined) throw usageError('--from judges a saved object: not with -s, --last or --turn');
      return { source: { kind: 'file', path: from === STDIN_MARKER ? '-' : from }, gates, githubOutput };
    }
    // Nothing named: a saved object is as likely as a session (`nsed gate < turn.json` reads nothing).
    if (!named)
      throw usageError(
        'name what to judge: a session with -s ID or --last, or a saved -o json object with --from FILE',
        'for an object on standard input (nsed gate --from - < turn.json), pass --from -',
      );
    return { source: { kind: 'session', target: parseSessionTarget(argv), turn }, gates, githubOutput };
  },
  run: async (opts, ctx) => {
    const mode = ctx.globals.settings.output.value;
    if (mode !== 'text' && mode !== 'json')
      throw usageError(`nsed gate prints text or json, not ${mode}`, 'use -o json for the gate result as JSON');
    const gates = await loadGates(opts.gates, ctx);
    const [{ judgeGates }, { gateCheckLines, gateFailure }, { toJsonLine }] = await Promise.all([
      import('../council/verdict.js'),
      import('../output/gate-lines.js'),
      import('../output/ndjson.js'),
    ]);
    const judged =
      opts.source.kind === 'file'
        ? { ...(await savedVerdict(opts.source.path, ctx)), session: null }
        : await recordedVerdict(ctx, opts.source);
    const { verdict, usage } = judged;
    const result = judgeGates(verdict, gates ?? {}, usage);
    ctx.io.stdout.write(
      mode === 'json'
        ? toJsonLine(result)
        : gateCheckLines(result)
            .map((l) => `${l}\n`)
            .join(''),
    );
    const failure = gateFailure(result);
    const err = failure === undefined ? undefined : new NsedError(failure.code, failure.message);
    const outputs = (await import('../turn/reports/report-options.js')).stepOutputFile(opts, ctx.env);
    if (outputs !== undefined) {
      const [{ writeStepOutputs }, { usageOutputs, verdictOutputs }] = await Promise.all([
        import('../turn/reports/write-reports.js'),
        import('../output/github-output.js'),
      ]);
      await writeStepOutputs(ctx, outputs, [
        ['session-id', judged.session ?? ''],
        ['exit-code', String(err?.exitCode ?? ExitCode.ok)],
        ...verdictOutputs(verdict, result),
        ...usageOutputs(usage),
      ]);
    }
    if (err === undefined) return 0;
    // stdout holds the result already: no failure object after it.
    markReported(err);
    throw err;
  },
};

/** The verdict of a session's turn; a turn that did not complete keeps its own exit code. */
async function recordedVerdict(
  ctx: Context,
  source: Extract<GateOptions['source'], { kind: 'session' }>,
): Promise<{ verdict: CouncilVerdict; usage: Usage | null; session: string }> {
  const [{ resolveTurnRef }, { turnDocument }] = await Promise.all([
    import('../session/index.js'),
    import('../output/export/json.js'),
  ]);
  const session = await readTarget(ctx, source.target);
  const index =
    source.turn === undefined
      ? session.turns.findLastIndex((t) => t.role === 'assistant' && t.kind !== 'injection')
      : resolveTurnRef(session, source.turn);
  const turn = session.turns[index];
  if (turn === undefined) throw usageError(`session ${session.id} has no answer to judge`);
  if (turn.role !== 'assistant' || turn.kind === 'injection')
    throw usageError(`turn ${source.turn ?? ''} of session ${session.id} is not an answer`, 'name an assistant turn');
  const doc = turnDocument(turn);
  if (doc.status !== 'complete') throw notCompleted(`turn ${doc.id} of session ${session.id}`, doc.status);
  return { verdict: doc.verdict ?? unreachableVerdict(), usage: doc.usage, session: session.id };
}

function unreachableVerdict(): never {
  throw new NsedError('bug', 'an answer without a verdict');
}

const STATUS_CODE: Record<string, ErrorCode> = { failed: 'server', cancelled: 'cancelled', interrupted: 'interrupted' };

/** Gates judge only completed turns: any other keeps the code its own run exited with. */
function notCompleted(what: string, status: string, exitCode?: number): NsedError {
  const code = STATUS_CODE[status] ?? 'server';
  const known = (Object.values(ExitCode) as number[]).includes(exitCode ?? -1);
  return new NsedError(code, `${what} is ${oneLine(status, 40)}: gates judge only completed turns`, {
    ...(known
      ? { exitCode: exitCode as ExitCodeValue }
      : code === 'interrupted'
        ? { exitCode: ExitCode.interrupted }
        : {}),
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The verdict of a saved `-o json` object (a file, or stdin with `-`). */
async function savedVerdict(path: string, ctx: Context): Promise<{ verdict: CouncilVerdict; usage: Usage | null }> {
  const where = path === '-' ? 'standard input' : oneLine(path, 200);
  let text: string;
  if (path === '-') {
    if (ctx.io.stdinIsTTY)
      throw usageError('--from - reads a saved -o json object from standard input, which is a terminal');
    text = await readStdin(ctx, 'the saved -o json object');
  } else {
    // A saved -o json object holds the whole answer: read with standard input's cap.
    text = await readFlagFile(path, '--from', ctx, MAX_STDIN_BYTES);
  }
  let saved: unknown;
  try {
    saved = JSON.parse(text);
  } catch {
    throw usageError(`${where} is not one JSON object`, 'save a run with -o json (one object), not -o ndjson');
  }
  if (!isObject(saved)) throw usageError(`${where} is not one JSON object`);
  const status = typeof saved['status'] === 'string' ? saved['status'] : 'complete';
  if (status !== 'complete') {
    const error = isObject(saved['error']) ? saved['error'] : {};
    const exit = typeof error['exit_code'] === 'number' ? error['exit_code'] : undefined;
    throw notCompleted(`the turn in ${where}`, status, exit);
  }
  const [{ readVerdict }, { readUsage }] = await Promise.all([
    import('../council/verdict.js'),
    import('../council/usage.js'),
  ]);
  const verdict = readVerdict(saved['verdict']);
  if (verdict === null)
    throw usageError(`${where} holds no verdict (v 1 or 2)`, 'save the run with -o json from this nsed version');
  return { verdict, usage: saved['usage'] === undefined ? null : readUsage(saved['usage']) };
}
