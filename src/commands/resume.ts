import type { ReportOptions } from '../turn/reports/report-options.js';
import type { CommandDef } from './command.js';
import { GATE_FLAGS, loadGates, parseGateFlags, type GateRequest } from './shared/gate-flags.js';
import { parseReportOptions, REPORT_FLAGS } from './shared/report-flags.js';
import {
  assertNsedSession,
  parseSessionTarget,
  readTarget,
  SESSION_TARGET_CONFLICTS,
  SESSION_TARGET_FLAGS,
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
  flags: [...SESSION_TARGET_FLAGS, ...REPORT_FLAGS, ...GATE_FLAGS],
  conflicts: SESSION_TARGET_CONFLICTS,
  examples: [['nsed resume --last', 'pick up where a closed terminal left off']],
  parse: (argv) => {
    const reports = parseReportOptions(argv);
    return {
      target: parseSessionTarget(argv),
      gates: parseGateFlags(argv),
      ...(reports === undefined ? {} : { reports }),
    };
  },
  run: async (opts, ctx) => {
    await (await import('../turn/reports/report-options.js')).checkReportFiles(opts.reports);
    const [{ followLeftTurn }, { NsedError }, lease] = await Promise.all([
      import('../turn/follow-left.js'),
      import('../errors.js'),
      import('../turn/idempotency/claim.js'),
    ]);
    const gates = await loadGates(opts.gates, ctx);
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
    const conn = await ctx.connect(found.orchestrator, { pending: found.pending_job, needsJob: true });
    // A turn cut off before the orchestrator named its job left its claim: the job it may have
    // started is looked up in GET /deliberations, as for a dead owner's (docs/reliability.md #97).
    try {
      return (await followLeftTurn(ctx, conn, found, { reports: opts.reports, gates })).exitCode;
    } finally {
      await conn.close();
    }
  },
};
