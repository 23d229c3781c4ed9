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
    const [{ connect }, { followPending }, { settlementOf }, { NsedError, notFound, toNsedError }, { upsertAssistantTurn }, { newTurnId }] = await Promise.all([
      import('./shared/connection.js'),
      import('./shared/execute-turn.js'),
      import('../turn/settle.js'),
      import('../errors.js'),
      import('../session/lineage.js'),
      import('../session/ids.js'),
    ]);
    const { ctx } = env;
    const { store, session } = await openTarget(env, argv);
    const id = session.id;
    const pending = session.pending_job;
    if (pending === undefined) {
      // The same code as inject and cancel with nothing running: scripts test one number.
      throw new NsedError('conflict', `nothing is running in session ${id}`, { hint: `its last turn is recorded; ask a follow-up with 'nsed continue -s ${id}'` });
    }
    const conn = await connect(env, session.orchestrator);
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
      const settled = settlementOf(result);
      if (settled.kind === 'failed' || settled.kind === 'cancelled') {
        const why = settled.kind === 'failed' ? `failed: ${settled.reason}`.slice(0, 300) : 'was cancelled';
        await store.update(id, (s) => {
          if (s.pending_job?.job_id === pending.job_id) delete s.pending_job;
          const existing = s.turns.find((t) => t.role === 'assistant' && t.job_id === pending.job_id);
          upsertAssistantTurn(s, {
            ...(existing ?? {}),
            id: existing?.id ?? newTurnId(ctx.randomHex),
            role: 'assistant',
            kind: 'message',
            content: existing?.content ?? '',
            status: settled.kind,
            ts: ctx.clock.now().toISOString(),
            policy_id: pending.policy,
            job_id: pending.job_id,
            path: pending.path,
            error: `deliberation ${why}`,
          });
        });
        throw new NsedError(settled.kind === 'failed' ? 'server' : 'cancelled', `deliberation ${pending.job_id} ${why}`, {
          hint: `ask again with 'nsed continue -s ${id}'`,
        });
      }
      const content = result.result?.trim() ?? '';
      return await followPending(
        env,
        { store, conn },
        session,
        pending,
        settled.kind === 'completed' ? { kind: 'result', jobId: pending.job_id, content } : { kind: 'attach', jobId: pending.job_id },
      );
    } finally {
      await conn.close();
    }
  },
};
