import type { Context } from '../run/context.js';
import { ExitCode, NsedError, toNsedError, type ExitCodeValue } from '../errors.js';
import { cancelOnExit, cancelsOnExit } from './cancel-on-exit.js';
import type { LiveTurn } from './live-turn.js';
import { capError } from './spend-watch.js';
import type { ErrorEnd } from './turn-end.js';

/**
 * How a turn that stopped on an error ended, as a value for finishTurn: never sent (nothing to
 * record), cancelled (by the orchestrator already, or by --on-exit cancel now), failed (the job
 * is over), or interrupted or timed out (the job may run on, for `nsed resume`).
 */
export async function endOfError(live: LiveTurn, err: unknown): Promise<ErrorEnd> {
  const { ctx } = live.deps;
  const { jobId } = live;
  const raw = toNsedError(err);
  // A request that never reached the orchestrator leaves nothing to record: the command
  // forgets the turn instead (no empty session for --last to pick), and releases its claim.
  const neverSent = raw.unsent && jobId === undefined;
  // Sent, and cut off before any response named a job: the orchestrator may have started one
  // all the same, so the claim stays for `resume` to look it up (docs/reliability.md #97).
  const startUnseen =
    !neverSent &&
    jobId === undefined &&
    raw.status === undefined &&
    raw.drop === undefined &&
    (ctx.signal.aborted || raw.code === 'network' || raw.code === 'timeout' || raw.code === 'interrupted');
  // The cap cancelled the job, and its stream ended in an error (a cancelled job's, or a drop).
  if (live.capped !== undefined && !ctx.signal.aborted)
    return { kind: 'capped', stop: live.capped, error: capError(live.capped, jobId, live.spec.sessionId) };
  const error = classify(err, ctx, { sessionId: live.spec.sessionId, jobId, startUnseen });
  if (neverSent) return { kind: 'unsent', error };
  if (live.transcript.finishReason === 'cancelled') return { kind: 'cancelled', error, recorded: true };
  // --on-exit cancel: the job stops on the orchestrator before the run exits, with the exit code
  // the signal or deadline gave (docs/reliability.md #130).
  if (jobId !== undefined && cancelsOnExit(ctx, raw)) {
    const outcome = await cancelOnExit(ctx, live.deps.client, jobId, { session: live.spec.sessionId });
    if (outcome === 'cancelled') {
      const onExit = new NsedError(
        error.code,
        `${stopped(raw, ctx)}; deliberation ${jobId} was cancelled on the orchestrator`,
        { exitCode: error.exitCode, hint: 'the turn is recorded as cancelled (--on-exit cancel)' },
      );
      return { kind: 'cancelled', error: onExit, recorded: false, message: onExit.message };
    }
  }
  // A job that failed or was refused is over; one that was cut off (with or without a job id:
  // a roomless answer that dropped is interrupted, not failed), or whose orchestrator
  // answered 5xx or 429, may still be running: only a definite answer ends it (docs/reliability.md #46).
  const over =
    !ctx.signal.aborted &&
    !startUnseen &&
    raw.drop === undefined &&
    (jobId === undefined || (raw.code === 'server' && !isTransientStatus(raw.status)));
  if (over) return { kind: 'failed', error };
  return { kind: raw.code === 'timeout' ? 'timed-out' : 'interrupted', error, startUnseen };
}

/** What ended the run, for the message of a cancel on exit. */
const stopped = (raw: NsedError, ctx: Context): string =>
  ctx.signal.aborted
    ? 'interrupted'
    : raw.code === 'timeout'
      ? 'the turn did not finish within --timeout'
      : raw.message;

const isTransientStatus = (status: number | undefined): boolean =>
  status !== undefined && (status === 429 || status >= 500);

/** The error the run ends with: a signal's interrupt, and the way on for a job that may run on. */
function classify(
  err: unknown,
  ctx: Context,
  turn: { sessionId: string; jobId: string | undefined; startUnseen: boolean },
): NsedError {
  const { sessionId, jobId, startUnseen } = turn;
  // `resume` looks up a job nsed did not see start, as it follows one it did (docs/reliability.md #97).
  const unseen = startUnseen ? ' before the orchestrator named a deliberation' : '';
  const hint = startUnseen
    ? `if the orchestrator started it, 'nsed resume -s ${sessionId}' finds it and records its answer`
    : `nsed resume -s ${sessionId}`;
  if (ctx.signal.aborted) {
    const code = (ctx.signalExit() ?? ExitCode.interrupted) as ExitCodeValue;
    return new NsedError(
      'interrupted',
      jobId === undefined ? `interrupted${unseen}` : `interrupted; deliberation ${jobId} goes on on the orchestrator`,
      { exitCode: code, hint },
    );
  }
  const e = toNsedError(err);
  const transient =
    e.drop !== undefined ||
    e.code === 'network' ||
    e.code === 'timeout' ||
    e.code === 'store' ||
    (e.code === 'server' && isTransientStatus(e.status));
  if ((jobId !== undefined || startUnseen) && transient) {
    return new NsedError(e.code, e.message, { exitCode: e.exitCode, hint, cause: e });
  }
  return e;
}
