import type { CommandDef } from './command.js';
import { promptWords, readPrompt } from './shared/prompt.js';
import { openTarget, withSessionTarget } from './shared/session-target.js';
import { councilOf, toTurnOptions, withRecordedCouncil, withTurnOptions } from './shared/turn-options.js';

/** `nsed continue [PROMPT...] (-s ID | --last)`: the next turn of a session, its whole lineage resent. */
export const continueCommand: CommandDef = {
  command: 'continue [prompt..]',
  describe: 'run the next turn of a session (-s ID or --last)',
  builder: (y) =>
    withSessionTarget(withTurnOptions(y))
      .positional('prompt', { type: 'string', array: true, describe: 'the follow-up (- or a pipe for stdin)' })
      .example('nsed continue --last "and for writes?"', 'follow up on the latest session')
      .example('nsed continue -s 20261130 -p fast "shorter please"', 'swap the policy for this turn and onward')
      .epilog('A session started with --agents/--rounds keeps that council; either flag changes it from this turn on.'),
  run: async (env, argv) => {
    const flags = toTurnOptions(argv);
    const prompt = await readPrompt(promptWords(argv['prompt'], argv['--']), env.ctx.io);
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
    const opts = withRecordedCouncil(flags, before.council);
    const conn = await connect(env, before.orchestrator, before.pending_job, false);
    try {
      const { ctx } = env;
      const state = await reconcile.reconcilePending(conn.client, store, before, ctx.randomHex, () => ctx.clock.now());
      if (state === 'running') throw reconcile.runningConflict(id, before.pending_job?.job_id ?? '');
      const userTurnId = newTurnId(ctx.randomHex);
      const session = await store.update(id, (s) => {
        if (opts.policy !== undefined) s.active_policy = toModel(opts.policy);
        if (opts.system !== undefined) s.system = opts.system;
        if (opts.title !== undefined) s.title = opts.title;
        const council = councilOf(opts);
        if (council !== undefined) s.council = council;
        s.turns.push(userTurn(userTurnId, prompt, ctx.clock.now()));
      });
      return await executeTurn(env, { store, conn }, session, userTurnId, opts);
    } finally {
      await conn.close();
    }
  },
};
