import type { NsedClient } from '../api/index.js';
import type { Context } from '../run/context.js';
import { toNsedError, type NsedError } from '../errors.js';
import { oneLine } from '../terminal/sanitize.js';

/** The client's connect timeout: a cancel that gets no answer within it is given up (docs/reliability.md #130). */
export const CANCEL_BOUND_MS = 10_000;

/** How a cancel on exit ended: the job stopped, was over already, or could not be stopped. */
export type CancelOutcome = 'cancelled' | 'over' | 'unanswered' | 'failed';

/**
 * Whether the run ends by `--on-exit cancel`: a signal, or the whole-turn deadline (an idle
 * timeout is a drop, which resume can follow, not the user's decision to stop).
 */
export function cancelsOnExit(ctx: Context, err: NsedError): boolean {
  if (ctx.globals.settings.onExit.value !== 'cancel') return false;
  return ctx.signal.aborted || (err.code === 'timeout' && err.drop === undefined);
}

/**
 * Cancels `jobId` on the orchestrator, waiting at most `boundMs` whatever the server does; what
 * did not work is one line on stderr, and the caller's exit code stays. Not tied to the run's
 * signal, which has fired already. Exported for every caller that ends running jobs on exit.
 */
export async function cancelOnExit(
  ctx: Context,
  client: NsedClient,
  jobId: string,
  opts: { session?: string; boundMs?: number } = {},
): Promise<CancelOutcome> {
  const boundMs = opts.boundMs ?? CANCEL_BOUND_MS;
  const stop = new AbortController();
  const bound = new AbortController();
  const timedOut = ctx.clock.sleep(boundMs, bound.signal).then(
    () => 'unanswered' as const,
    () => 'unanswered' as const,
  );
  const sent = client.cancel(jobId, { signal: stop.signal, pastDeadline: true }).then(
    () => 'cancelled' as const,
    (err: unknown) => {
      const e = toNsedError(err);
      // The job ended before the cancel reached it: nothing runs on, nothing to report.
      if (e.code === 'conflict' || e.code === 'not_found') return 'over' as const;
      ctx.io.stderr.write(`nsed: could not cancel deliberation ${jobId}: ${oneLine(e.message, 200)}\n`);
      return 'failed' as const;
    },
  );
  const outcome = await Promise.race([sent, timedOut]);
  bound.abort();
  if (outcome === 'unanswered') {
    stop.abort();
    ctx.io.stderr.write(
      `nsed: the orchestrator did not answer the cancel of deliberation ${jobId} within ${boundMs / 1000} s; it may still be running\n`,
    );
    ctx.io.stderr.write(`hint: nsed cancel -s ${opts.session ?? 'SESSION'} stops it\n`);
  }
  return outcome;
}
