import type { ReportOptions } from '../turn/report-options.js';
import type { CommandDef } from './command.js';
import { parseReportOptions, withReportFlags } from './shared/report-flags.js';
import { loadGates, parseGateFlags, withGateFlags, type GateRequest } from './shared/gate-flags.js';
import {
  assertNsedSession,
  parseSessionTarget,
  readTarget,
  withSessionTarget,
  type SessionTarget,
} from './shared/session-target.js';

export interface ResumeOptions {
  target: SessionTarget;
  reports?: ReportOptions;
  gates: GateRequest;
}

/**
 * `nsed resume [-s ID | --last]`: reattach to the session's pending deliberation after a
 * dropped connection or a closed terminal. The replay starts at the job's beginning and the
 * turn is rebuilt from it; a job that already finished is recorded from GET /result.
 */
export const resume: CommandDef<ResumeOptions> = {
  command: 'resume',
  describe: "reattach to the session's running deliberation; finish and record the turn",
  builder: (y) =>
    withGateFlags(withReportFlags(withSessionTarget(y))).example(
      'nsed resume --last',
      'pick up where a closed terminal left off',
    ),
  parse: (argv) => {
    const reports = parseReportOptions(argv);
    return {
      target: parseSessionTarget(argv),
      gates: parseGateFlags(argv),
      ...(reports === undefined ? {} : { reports }),
    };
  },
  run: async (opts, ctx) => {
    await (await import('../turn/report-options.js')).checkReportFiles(opts.reports);
    const [
      { followPending },
      { GONE_REASON, clearPending, recordJobEnd },
      { NsedError, notFound },
      { askJobState },
      lease,
    ] = await Promise.all([
      import('../turn/execute-turn.js'),
      import('../turn/reconcile.js'),
      import('../errors.js'),
      import('../turn/job-result.js'),
      import('../turn/claim.js'),
    ]);
    const gates = await loadGates(opts.gates);
    const found = await readTarget(ctx, opts.target);
    const id = found.id;
    const claimed = found.pending_job === undefined && found.claim !== undefined && lease.claimLeft(found.claim);
    if (found.pending_job === undefined && !claimed) {
      // The same code as inject and cancel with nothing running: scripts test one number. An
      // answer that came without a job (a plain server, a strict passthrough) is no exception.
      const last = found.turns.findLast((t) => t.role === 'assistant' && t.status === 'complete');
      const why =
        last !== undefined && last.job_id === undefined ? ': its last turn had no deliberation to follow' : '';
      throw new NsedError('conflict', `nothing is running in session ${id}${why}`, {
        hint: `its last turn is recorded; ask a follow-up with 'nsed continue -s ${id}'`,
      });
    }
    assertNsedSession(found);
    const store = await ctx.store();
    const conn = await ctx.connect(found.orchestrator, { pending: found.pending_job, needsJob: true });
    // A turn cut off before the orchestrator named its job left its claim: the job it may have
    // started is looked up in GET /deliberations, as for a dead owner's (docs/reliability.md #97).
    try {
      const session = claimed ? await lease.reconcileDeadClaim(conn.client, store, found, ctx.signal) : found;
      const pending = session.pending_job;
      if (pending === undefined) {
        throw new NsedError('conflict', `nothing is running in session ${id}`, {
          hint: `the orchestrator lists no deliberation the interrupted turn started; ask again with 'nsed continue -s ${id}'`,
        });
      }
      const state = await askJobState(conn.client, pending.job_id, ctx.signal);
      switch (state.kind) {
        case 'gone':
          await clearPending(store, id, pending.job_id, GONE_REASON);
          throw notFound(
            `deliberation ${pending.job_id} is gone from the orchestrator; the turn stays interrupted`,
            'its history expired or the orchestrator restarted; ask again with nsed continue',
          );
        case 'failed':
        case 'cancelled': {
          // A cancelled job has its own state and exit code, not a failure's.
          const cancelled = state.kind === 'cancelled';
          const why = cancelled ? 'was cancelled' : `failed: ${state.reason.slice(0, 300)}`;
          await recordJobEnd(ctx, store, id, pending, state.kind, `deliberation ${why}`);
          throw new NsedError(cancelled ? 'cancelled' : 'server', `deliberation ${pending.job_id} ${why}`, {
            hint: `ask again with 'nsed continue -s ${id}'`,
          });
        }
        case 'completed':
          return await followPending(
            ctx,
            conn,
            session,
            pending,
            {
              kind: 'result',
              jobId: pending.job_id,
              content: state.answer,
            },
            { reports: opts.reports, gates },
          );
        case 'running':
          return await followPending(
            ctx,
            conn,
            session,
            pending,
            { kind: 'attach', jobId: pending.job_id },
            { reports: opts.reports, gates },
          );
      }
    } finally {
      await conn.close();
    }
  },
};
