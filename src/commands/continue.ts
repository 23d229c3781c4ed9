import { withoutSaving } from '../context.js';
import type { TurnOptions } from '../turn/turn-options.js';
import type { CommandDef } from './command.js';
import { promptWords, readPrompt } from './shared/prompt.js';
import { parseSessionTarget, readTarget, withSessionTarget, type SessionTarget } from './shared/session-target.js';
import { parseTurnOptions, withTurnOptions } from './shared/turn-flags.js';

export interface ContinueOptions {
  target: SessionTarget;
  prompt: string[];
  turn: TurnOptions;
}

/** `nsed continue [PROMPT...] (-s ID | --last)`: the next turn of a session, its whole lineage resent. */
export const continueCommand: CommandDef<ContinueOptions> = {
  command: 'continue [prompt..]',
  describe: 'run the next turn of a session (-s ID or --last)',
  builder: (y) =>
    withSessionTarget(withTurnOptions(y))
      .positional('prompt', { type: 'string', array: true, describe: 'the follow-up (- or a pipe for stdin)' })
      .example('nsed continue --last "and for writes?"', 'follow up on the latest session')
      .example('nsed continue -s 20261130 -p fast "shorter please"', 'swap the policy for this turn and onward'),
  parse: (argv) => ({ turn: parseTurnOptions(argv), prompt: promptWords(argv['prompt']), target: parseSessionTarget(argv) }),
  run: async (opts, given) => {
    const ctx = opts.turn.save === false ? await withoutSaving(given) : given;
    const prompt = await readPrompt(opts.prompt, ctx.io, { context: true });
    const [{ executeTurn }, reconcile, { userTurn }, { toModel }, { newTurnId }] = await Promise.all([
      import('../turn/execute-turn.js'),
      import('../turn/reconcile.js'),
      import('../turn/start-session.js'),
      import('../protocol/policy-ref.js'),
      import('../session/ids.js'),
    ]);
    const before = await readTarget(ctx, opts.target);
    const id = before.id;
    const conn = await ctx.connect(before.orchestrator);
    try {
      const state = await reconcile.reconcilePending(ctx, conn, before);
      if (state === 'running') throw reconcile.runningConflict(id, before.pending_job?.job_id ?? '');
      const userTurnId = newTurnId(ctx.randomHex);
      const { turn } = opts;
      const session = await (await ctx.store()).update(id, (s) => {
        if (turn.policy !== undefined) s.active_policy = toModel(turn.policy);
        if (turn.model !== undefined) s.active_policy = turn.model;
        if (turn.system !== undefined) s.system = turn.system;
        if (turn.title !== undefined) s.title = turn.title;
        s.turns.push(userTurn(userTurnId, prompt, ctx.clock.now()));
      });
      return await executeTurn(ctx, conn, session, userTurnId, turn);
    } finally {
      await conn.close();
    }
  },
};
