import type { Context } from '../../run/context.js';
import { NsedError } from '../../errors.js';
import { turnRenderer } from '../turn-renderer.js';
import { progressMode } from '../../output/progress-mode.js';
import { assertStdoutWritten } from '../../output/session-write.js';
import { readNamedSession, sessionAgents, type SessionTarget } from '../../session/index.js';
import { askJobState, followStart } from '../follow/job-result.js';
import { watchJob, type WatchSpec } from './watch-job.js';

/** What `nsed watch` names: a session (-s ID, --last) or a deliberation id. */
export type WatchTarget = SessionTarget | { kind: 'job'; jobId: string };

/**
 * Finds the job a watch follows and follows it. The session is only read (no lock, no listing
 * index written, docs/architecture.md); with nothing running, or a job the orchestrator does not
 * know, the watch exits 7 as resume does, and a job that already ended gives its outcome at once.
 */
export async function followWatch(ctx: Context, target: WatchTarget, agents: readonly string[]): Promise<number> {
  const session =
    target.kind === 'job' ? undefined : await readNamedSession(await ctx.store(), target, { readOnly: true });
  const pending = session?.pending_job;
  const jobId = target.kind === 'job' ? target.jobId : pending?.job_id;
  if (jobId === undefined) throw nothingRunning(`nothing is running in session ${session?.id ?? ''}`, session?.id);
  const conn = await ctx.connect(session?.orchestrator, { pending, needsJob: true });
  try {
    const state = await askJobState(conn.client, jobId, ctx.signal);
    if (state.kind === 'gone')
      throw nothingRunning(`deliberation ${jobId} is not known to the orchestrator`, session?.id);
    if (state.kind === 'cancelled') throw new NsedError('cancelled', `deliberation ${jobId} was cancelled`);
    if (state.kind === 'failed')
      throw new NsedError('server', `deliberation ${jobId} failed: ${state.reason.slice(0, 300)}`);
    const replayed = state.kind === 'completed' && followStart(jobId, state)?.start.kind === 'attach';
    const spec: WatchSpec = {
      jobId,
      session: session?.id ?? '',
      policy: pending?.policy ?? '',
      council: (session === undefined ? undefined : sessionAgents(session)) ?? null,
      // A job named by id alone: /resume where offered, else the native job stream.
      path: pending?.path ?? (replayed ? 'compat' : 'native'),
      url: conn.url,
      agents,
      // An ended compat job is replayed, so the watch shows its rounds and verdict
      // (docs/reliability.md #200); any other ended job shows the answer /result gave.
      ...(state.kind === 'completed' && !replayed ? { answer: state.answer } : {}),
    };
    const progress = progressMode(ctx.globals.settings.progress.value, ctx.env, ctx.io.stderrIsTTY);
    const renderer = await turnRenderer(ctx, {
      now: () => ctx.clock.now().getTime(),
      progress,
    });
    const code = await watchJob({ ctx, client: conn.client, renderer }, spec);
    await assertStdoutWritten(ctx.io);
    return code;
  } finally {
    await conn.close();
  }
}

function nothingRunning(message: string, sessionId: string | undefined): NsedError {
  return new NsedError('conflict', message, {
    hint:
      sessionId === undefined
        ? "list the running deliberations with 'nsed sessions ls --state running'"
        : `see its recorded turns with 'nsed sessions show ${sessionId}'`,
  });
}
