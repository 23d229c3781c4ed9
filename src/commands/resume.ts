import type { CommandDef } from './command.js';
import { openTarget, withSessionTarget } from './shared/session-target.js';

/**
 * `nsed resume [-s ID | --last]`: reattach to the session's pending deliberation after a
 * dropped connection or a closed terminal. The replay starts at the job's beginning and the
 * turn is rebuilt from it; a job that already finished is recorded from GET /result.
 */
export const resume: CommandDef = {
  command: 'resume',
  describe: "reattach to the session's running deliberation; finish and record the turn",
  builder: (y) => withSessionTarget(y).example('nsed resume --last', 'pick up where a closed terminal left off'),
  run: async (env, argv) => {
    const [{ connect }, { followPending }, { statusWord }, { NsedError, notFound, toNsedError }] = await Promise.all([
      import('./shared/connection.js'),
      import('./shared/execute-turn.js'),
      import('../protocol/job-status.js'),
      import('../errors.js'),
    ]);
    const { ctx } = env;
    const { store, session } = await openTarget(env, argv);
    const id = session.id;
    const pending = session.pending_job;
    if (pending === undefined) {
      throw notFound(`nothing is pending in session ${id}`, `its last turn is recorded; ask a follow-up with 'nsed continue -s ${id}'`);
    }
    const conn = await connect(env, session.orchestrator, session.pending_job);
    try {
      let result;
      try {
        result = await conn.client.result(pending.job_id, { signal: ctx.signal });
      } catch (err) {
        if (toNsedError(err).code !== 'not_found') throw err;
        await store.update(id, (s) => {
          if (s.pending_job?.job_id === pending.job_id) delete s.pending_job;
          const turn = s.turns.find((t) => t.role === 'assistant' && t.job_id === pending.job_id);
          if (turn !== undefined) turn.error = 'the orchestrator no longer knows this deliberation';
        });
        throw notFound(`deliberation ${pending.job_id} is gone from the orchestrator; the turn stays interrupted`, 'its history expired or the orchestrator restarted; ask again with nsed continue');
      }
      const status = statusWord(result.status);
      if (status.startsWith('failed')) {
        await store.update(id, (s) => {
          if (s.pending_job?.job_id === pending.job_id) delete s.pending_job;
        });
        throw new NsedError('server', `deliberation ${pending.job_id} ${result.status}`.slice(0, 300), { hint: `ask again with 'nsed continue -s ${id}'` });
      }
      const content = result.result?.trim() ?? '';
      return await followPending(
        env,
        { store, conn },
        session,
        pending,
        status === 'completed' ? { kind: 'result', jobId: pending.job_id, content } : { kind: 'attach', jobId: pending.job_id },
      );
    } finally {
      await conn.close();
    }
  },
};
