import type { CommandDef } from './command.js';
import {
  assertNsedSession,
  parseSessionTarget,
  readTarget,
  SESSION_TARGET_CONFLICTS,
  SESSION_TARGET_FLAGS,
  type SessionTarget,
} from './shared/session-target.js';

export interface CancelOptions {
  target: SessionTarget;
}

/** `nsed cancel [-s ID | --last]`: stop the session's running deliberation on the orchestrator. */
export const cancel: CommandDef<CancelOptions> = {
  command: 'cancel',
  describe: "cancel the session's running deliberation (Ctrl-C only detaches)",
  flags: SESSION_TARGET_FLAGS,
  conflicts: SESSION_TARGET_CONFLICTS,
  parse: (argv) => ({ target: parseSessionTarget(argv) }),
  run: async (opts, ctx) => {
    const [{ NsedError, toNsedError }, { recordJobEnd }, { acknowledge }] = await Promise.all([
      import('../errors.js'),
      import('../turn/reconcile.js'),
      import('../output/acknowledge.js'),
    ]);
    const session = await readTarget(ctx, opts.target);
    assertNsedSession(session);
    const store = await ctx.store();
    const id = session.id;
    const pending = session.pending_job;
    if (pending === undefined) {
      throw new NsedError('conflict', `nothing is running in session ${id}`, {
        hint: 'there is no pending deliberation to cancel',
      });
    }
    const conn = await ctx.connect(session.orchestrator, { pending: session.pending_job, needsJob: true });
    try {
      try {
        await conn.client.cancel(pending.job_id, { signal: ctx.signal });
      } catch (err) {
        const e = toNsedError(err);
        if (e.code !== 'conflict' && e.code !== 'not_found') throw e;
        const { reconcilePending } = await import('../turn/reconcile.js');
        await reconcilePending(ctx, conn, session);
        throw new NsedError('conflict', `deliberation ${pending.job_id} is no longer running; nothing to cancel`, {
          hint: `see the recorded turn with 'nsed sessions show ${id}'`,
        });
      }
      await recordJobEnd(ctx, store, id, pending, 'cancelled');
      await acknowledge(ctx.globals.settings.output.value, ctx.io, {
        type: 'cancelled',
        session: id,
        job_id: pending.job_id,
      });
      return 0;
    } finally {
      await conn.close();
    }
  },
};
