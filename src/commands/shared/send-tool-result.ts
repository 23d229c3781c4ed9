import type { Connection } from '../../run/connection.js';
import type { Context } from '../../run/context.js';
import { NsedError, toNsedError, usageError } from '../../errors.js';
import type { PendingJob, Session } from '../../session/index.js';
import { sanitizeForTerminal } from '../../terminal/sanitize.js';

const CALL_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

/**
 * Sends one answer to the session's running job. "Nothing is running" is a conflict (exit 7),
 * like inject and cancel; an unknown call is not found (3); a call that already expired or was
 * answered is a conflict too, so a script learns its answer did not land.
 */
export async function sendToolResult(
  ctx: Context,
  conn: Connection,
  session: Session,
  callId: string,
  value: string,
): Promise<PendingJob> {
  if (!CALL_ID.test(callId))
    throw usageError(
      `'${sanitizeForTerminal(callId.slice(0, 60))}' is not a tool call id`,
      'copy the id shown with the call, e.g. call_ab12…',
    );
  const pending = session.pending_job;
  if (pending === undefined) {
    throw new NsedError('conflict', `nothing is running in session ${session.id}`, {
      hint: `see its turns with 'nsed sessions show ${session.id}'`,
    });
  }
  try {
    await conn.client.answerToolCall(pending.job_id, callId, value, { signal: ctx.signal });
  } catch (err) {
    const e = toNsedError(err);
    if (e.code === 'not_found')
      throw new NsedError('not_found', `deliberation ${pending.job_id} has no tool call ${callId}`, {
        hint: e.message,
      });
    throw e;
  }
  ctx.io.stderr.write(
    `answered ${sanitizeForTerminal(callId)} in deliberation ${sanitizeForTerminal(pending.job_id)}\n`,
  );
  // A turn that stopped at this call (exit 10) records the answer now; a running one records it
  // from its own stream.
  await (
    await ctx.store()
  ).update(session.id, (s) => {
    const turn = s.turns.find((t) => t.role === 'assistant' && t.job_id === pending.job_id);
    const call = turn?.tool_calls?.find((c) => c.id === callId);
    if (call !== undefined && call.status === undefined)
      Object.assign(call, { result: value, status: 'answered', exit_code: null, duration_ms: null });
  });
  return pending;
}
