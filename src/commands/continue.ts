import { savingAs } from '../run/context.js';
import { NsedError, usageError } from '../errors.js';
import type { Context } from '../run/context.js';
import type { Session } from '../session/index.js';
import type { TurnOptions } from '../turn/turn-options.js';
import type { CommandDef } from './command.js';
import { flagValues, positionalValues, type FlagDef, type PositionalDef } from './shared/flag-def.js';
import type { Gates } from '../council/verdict.js';
import { GATE_FLAGS, loadGates, parseGateFlags, type GateRequest } from './shared/gate-flags.js';
import type { InputOptions } from '../input/turn-input.js';
import { INPUT_FLAGS, parseInputOptions } from './shared/input-flags.js';
import { promptWords } from '../input/prompt.js';
import {
  parseSessionTarget,
  readTarget,
  SESSION_TARGET_CONFLICTS,
  SESSION_TARGET_FLAGS,
  type SessionTarget,
} from './shared/session-target.js';
import { parseTurnOptions, TURN_CONFLICTS, TURN_FLAGS } from './shared/turn-flags.js';
import { ESTIMATE_FLAG, parseEstimate } from './shared/estimate-flag.js';

export interface ContinueOptions {
  target: SessionTarget;
  prompt: string[];
  turn: TurnOptions;
  /** `--tool-result CALL_ID=FILE`, repeatable: answer the calls the turn stopped at. */
  toolResults: string[];
  /** -f, --schema, --template and their companions. */
  input: InputOptions;
  gates: GateRequest;
  /** --estimate: print what the turn may cost and send nothing. */
  estimate?: boolean;
}

const POSITIONALS = [
  { name: 'prompt', array: true, describe: 'the follow-up (- or a pipe for stdin)' },
] as const satisfies readonly PositionalDef[];

const FLAGS = [
  {
    name: 'tool-result',
    type: 'string',
    repeatable: true,
    describe: 'answer the tool call the turn stopped at: CALL_ID=FILE (- for stdin), repeatable',
    valueName: 'CALL_ID=FILE',
    sample: 'call_ab12=answer.txt',
  },
] as const satisfies readonly FlagDef[];

/** `nsed continue [PROMPT...] (-s ID | --last)`: the next turn of a session, its whole lineage resent. */
export const continueCommand: CommandDef<ContinueOptions> = {
  command: 'continue [prompt..]',
  describe: 'run the next turn of a session (-s ID or --last)',
  positionals: POSITIONALS,
  flags: [...TURN_FLAGS, ...SESSION_TARGET_FLAGS, ...FLAGS, ...INPUT_FLAGS, ...GATE_FLAGS, ESTIMATE_FLAG],
  conflicts: [...TURN_CONFLICTS, ...SESSION_TARGET_CONFLICTS],
  examples: [
    ['nsed continue --last "and for writes?"', 'follow up on the latest session'],
    ['nsed continue -s 20261130 -p fast "shorter please"', 'swap the policy for this turn and onward'],
    ['nsed continue --last --tool-result call_ab12=answer.txt', 'hand a tool result back and follow the deliberation'],
  ],
  epilog: 'A session started with --agents/--rounds keeps that council; either flag changes it from this turn on.',
  parse: (argv, settings) => {
    const p = positionalValues(POSITIONALS, argv);
    const opts = {
      turn: parseTurnOptions(argv, settings),
      prompt: promptWords(p.prompt, p['--']),
      target: parseSessionTarget(argv),
      toolResults: flagValues(FLAGS, argv)['tool-result'],
      input: parseInputOptions(argv),
      gates: parseGateFlags(argv),
      ...(parseEstimate(argv) ? { estimate: true } : {}),
    };
    if (opts.toolResults.length > 0 && (opts.prompt.length > 0 || opts.input.template !== undefined)) {
      throw usageError(
        'give either a prompt or --tool-result, not both',
        'answer the call first; ask the follow-up after',
      );
    }
    return opts;
  },
  run: async (opts, given) => {
    const ctx = await savingAs(given, opts.turn.save);
    await (await import('../turn/reports/report-options.js')).checkReportFiles(opts.turn.reports);
    if (opts.estimate === true) return estimateNext(opts, ctx);
    const gates = await loadGates(opts.gates, ctx);
    if (opts.toolResults.length > 0) return continueWithResults(opts, ctx, gates);
    const [
      { prepareTurnInput },
      { executeTurn },
      reconcile,
      lease,
      { userTurn },
      { toModel },
      { newTurnId },
      { councilOf, withRecordedCouncil },
    ] = await Promise.all([
      import('../input/turn-input.js'),
      import('../turn/execute-turn.js'),
      import('../turn/reconcile.js'),
      import('../turn/idempotency/claim.js'),
      import('../turn/start-session.js'),
      import('../protocol/policy-ref.js'),
      import('../session/index.js'),
      import('../turn/turn-options.js'),
    ]);
    const input = await prepareTurnInput(opts.prompt, opts.input, opts.turn, ctx);
    const found = await readTarget(ctx, opts.target);
    const id = found.id;
    // A --sim job still running in another process is reached there (and then refused below).
    const conn = await ctx.connect(found.orchestrator, { pending: found.pending_job, needsJob: false });
    try {
      const store = await ctx.store();
      // Settle what earlier runs left (a dead owner's claim, a pending job) before claiming.
      const before = await lease.reconcileDeadClaim(conn.client, store, found, ctx.signal);
      const state = await reconcile.reconcilePending(ctx, conn, before);
      if (state === 'running')
        throw waitingConflict(before) ?? reconcile.runningConflict(id, before.pending_job?.job_id ?? '');
      const userTurnId = newTurnId(ctx.randomHex);
      const claim = lease.newClaim(userTurnId, ctx.clock.now(), ctx.randomHex);
      const turn = { ...withRecordedCouncil(input.turn, before.council), gates };
      // One locked write checks that nothing runs and claims the session (the turn lease).
      const session = await store.update(id, (s) => {
        lease.assertFree(s);
        if (turn.policy !== undefined) s.active_policy = toModel(turn.policy);
        if (turn.model !== undefined) s.active_policy = turn.model;
        if (turn.system !== undefined) s.system = turn.system;
        if (turn.title !== undefined) s.title = turn.title;
        const council = councilOf(turn);
        // A policy named for this turn replaced the recorded council (withRecordedCouncil).
        if (council !== undefined) s.council = council;
        else delete s.council;
        s.turns.push(userTurn(userTurnId, input.prompt, ctx.clock.now(), input.attachments));
        s.claim = claim;
      });
      return (await executeTurn(ctx, conn, session, userTurnId, turn)).exitCode;
    } finally {
      await conn.close();
    }
  },
};

/**
 * `continue --estimate`: the next turn's council as the turn would choose it (the flags, else the
 * session's recorded council and policy), priced; the session is only read, nothing is claimed or sent.
 */
async function estimateNext(opts: ContinueOptions, ctx: Context): Promise<number> {
  const [{ printTurnEstimate }, { toModel }, { withRecordedCouncil }] = await Promise.all([
    import('./shared/estimate-flag.js'),
    import('../protocol/policy-ref.js'),
    import('../turn/turn-options.js'),
  ]);
  const found = await readTarget(ctx, opts.target);
  const turn = withRecordedCouncil(opts.turn, found.council);
  const model = turn.model ?? (turn.policy === undefined ? found.active_policy : toModel(turn.policy));
  return printTurnEstimate(ctx, found.orchestrator, model, turn);
}

/**
 * `continue --tool-result CALL_ID=FILE`: the turn stopped (exit 10) at calls nsed could not run;
 * their results go back on the same thread, and the same deliberation is followed to its answer.
 */
async function continueWithResults(opts: ContinueOptions, ctx: Context, gates: Gates | undefined): Promise<number> {
  const [{ followTurn }, results, { loadDeclaredTools }, lease, { boundsOf }] = await Promise.all([
    import('../turn/execute-turn.js'),
    import('./shared/tool-results.js'),
    import('../turn/turn-options.js'),
    import('../turn/idempotency/claim.js'),
    import('../files/read-input.js'),
  ]);
  const given = results.parseToolResultFlags(opts.toolResults);
  const session = await readTarget(ctx, opts.target);
  const spec = await results.toolResultSpec(session, given, ctx, opts.turn.stream);
  // The job waits on the simulator of the process that started it with --sim, if that one lives.
  const conn = await ctx.connect(session.orchestrator, { pending: session.pending_job, needsJob: true });
  try {
    const store = await ctx.store();
    const before = await lease.reconcileDeadClaim(conn.client, store, session, ctx.signal);
    // The turn lease, as for a new turn: one locked write checks that the calls still wait and
    // that no other process is answering them, and claims the session, so two answers never
    // interleave in one turn. The claim names the assistant turn, which the recorder never
    // releases on its own: it lasts until this command ends, and a dead owner's is reconciled.
    const claim = lease.newClaim(spec.assistantTurnId, ctx.clock.now(), ctx.randomHex);
    await store.update(before.id, (s) => {
      if (s.claim !== undefined) throw lease.claimConflict(s.id, s.claim);
      results.assertStillWaiting(s, spec, given);
      s.claim = claim;
    });
    try {
      const judged = gates === undefined ? spec : { ...spec, gates };
      const tools = await loadDeclaredTools(opts.turn, session.tools, boundsOf(ctx));
      const how = { saved: ctx.saving, reports: opts.turn.reports };
      return (await followTurn(ctx, conn, judged, tools, how)).exitCode;
    } finally {
      await lease.releaseClaim(store, before.id, claim.token).catch(() => undefined);
    }
  } finally {
    await conn.close();
  }
}

/** A job blocked on a call this session stopped at: the way on is its result, not a new turn. */
function waitingConflict(s: Session): NsedError | undefined {
  const turn = s.turns.find((t) => t.role === 'assistant' && t.job_id === s.pending_job?.job_id);
  const call = turn?.tool_calls?.find((c) => c.status === undefined);
  if (call === undefined) return undefined;
  return new NsedError('conflict', `session ${s.id} waits for the result of tool call ${call.id} (${call.name})`, {
    hint: `nsed continue -s ${s.id} --tool-result ${call.id}=FILE (- for stdin)`,
  });
}
