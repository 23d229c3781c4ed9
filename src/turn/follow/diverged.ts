import type { Context } from '../../run/context.js';
import { oneLine } from '../../terminal/sanitize.js';
import { settle } from './follow-stream.js';
import type { Divergence } from '../turn-end.js';
import type { FollowDeps } from '../turn-spec.js';

/**
 * The orchestrator's recorded answer for a turn whose replay differed from what was shown
 * (docs/reliability.md #33, #37): /result is asked once; undefined when it gives no completed,
 * non-empty answer (the splice is kept then, and the turn marked).
 */
export async function recordedAnswer(deps: FollowDeps, jobId: string | null): Promise<string | undefined> {
  if (jobId === null) return undefined;
  try {
    const s = await settle(deps, jobId);
    if (s?.kind === 'settled' && s.settlement.kind === 'completed' && s.settlement.answer !== '')
      return s.settlement.answer;
  } catch (err) {
    if (deps.ctx.signal.aborted) throw err;
  }
  return undefined;
}

/**
 * One warning line on stderr in every mode, -q included, since the answer a script reads is at
 * stake: the answer kept is the orchestrator's recorded one when it gave one, what final and
 * json print and what is recorded; text mode, which printed what was streamed, says so.
 */
export function warnDiverged(ctx: Context, d: Divergence, sessionId: string): void {
  const text = ctx.globals.settings.output.value === 'text';
  const what =
    d.cause === 'replay'
      ? 'the replay after a reconnect differed from what was already shown'
      : "the stream closed early and the orchestrator's recorded answer is not the text shown";
  const shown = !text
    ? ''
    : d.cause === 'replay'
      ? 'the answer printed above is spliced from two texts; '
      : 'the text printed above is not the answer; ';
  const kept = d.recorded
    ? "the orchestrator's recorded answer is the one kept"
    : d.cause === 'replay'
      ? 'the orchestrator gave no recorded answer, so the splice is kept and the turn marked diverged'
      : 'the orchestrator recorded an empty answer, so the streamed text is kept and the turn marked diverged';
  ctx.io.stderr.write(`nsed: warning: ${what}; ${shown}${kept} (nsed sessions show ${oneLine(sessionId, 80)})\n`);
}
