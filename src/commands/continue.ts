import { NsedError, usageError } from '../errors.js';
import type { Session } from '../session/model.js';
import type { CommandDef } from './command.js';
import { promptWords, readPrompt } from './shared/prompt.js';
import { openTarget, withSessionTarget } from './shared/session-target.js';
import { toTurnOptions, withTurnOptions, type TurnOptions } from './shared/turn-options.js';
import type { CommandEnv } from './command.js';

/** `nsed continue [PROMPT...] (-s ID | --last)`: the next turn of a session, its whole lineage resent. */
export const continueCommand: CommandDef = {
  command: 'continue [prompt..]',
  describe: 'run the next turn of a session (-s ID or --last)',
  builder: (y) =>
    withSessionTarget(withTurnOptions(y))
      .positional('prompt', { type: 'string', array: true, describe: 'the follow-up (- or a pipe for stdin)' })
      .example('nsed continue --last "and for writes?"', 'follow up on the latest session')
      .option('tool-result', { type: 'string', describe: 'answer the tool call the turn stopped at: CALL_ID=FILE (- for stdin), repeatable' })
      .example('nsed continue -s 20261130 -p fast "shorter please"', 'swap the policy for this turn and onward')
      .example('nsed continue --last --tool-result call_ab12=answer.txt', 'hand a tool result back and follow the deliberation'),
  run: async (env, argv) => {
    const opts = toTurnOptions(argv);
    if (argv['tool-result'] !== undefined) return continueWithResults(env, argv, opts);
    const prompt = await readPrompt(promptWords(argv['prompt']), env.ctx.io);
    const [{ connect }, { executeTurn }, reconcile, { userTurn }, { toModel }, { newTurnId }] = await Promise.all([
      import('./shared/connection.js'),
      import('./shared/execute-turn.js'),
      import('./shared/reconcile.js'),
      import('./shared/start-session.js'),
      import('../protocol/policy-ref.js'),
      import('../session/ids.js'),
    ]);
    const { store, session: before } = await openTarget(env, argv);
    const id = before.id;
    const conn = await connect(env, before.orchestrator);
    try {
      const { ctx } = env;
      const state = await reconcile.reconcilePending(conn.client, store, before, ctx.randomHex, () => ctx.clock.now());
      if (state === 'running') throw waitingConflict(before) ?? reconcile.runningConflict(id, before.pending_job?.job_id ?? '');
      const userTurnId = newTurnId(ctx.randomHex);
      const session = await store.update(id, (s) => {
        if (opts.policy !== undefined) s.active_policy = toModel(opts.policy);
        if (opts.system !== undefined) s.system = opts.system;
        if (opts.title !== undefined) s.title = opts.title;
        s.turns.push(userTurn(userTurnId, prompt, ctx.clock.now()));
      });
      return await executeTurn(env, { store, conn }, session, userTurnId, opts);
    } finally {
      await conn.close();
    }
  },
};

/**
 * `continue --tool-result CALL_ID=FILE`: the turn stopped (exit 10) at calls nsed could not run;
 * their results go back on the same thread, and the same deliberation is followed to its answer.
 */
async function continueWithResults(env: CommandEnv, argv: Record<string, unknown>, opts: TurnOptions): Promise<number> {
  if (promptWords(argv['prompt']).length > 0) throw usageError('give either a prompt or --tool-result, not both', 'answer the call first; ask the follow-up after');
  const [{ connect }, { followTurn }, results, { loadDeclaredTools }] = await Promise.all([
    import('./shared/connection.js'),
    import('./shared/execute-turn.js'),
    import('./shared/tool-results.js'),
    import('./shared/turn-options.js'),
  ]);
  const given = results.parseToolResultFlags(argv['tool-result']);
  const { store, session } = await openTarget(env, argv);
  const spec = await results.toolResultSpec(session, given, env.ctx.io, opts.stream);
  const conn = await connect(env, session.orchestrator);
  try {
    return await followTurn(env, { store, conn }, spec, env.globals.output, await loadDeclaredTools(opts, session.tools));
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
