import { oneLine } from '../terminal/sanitize.js';
import { settle } from './follow-stream.js';
import { divergedFrom, type Transcript } from '../transcript.js';
import type { TurnDeps } from './turn-spec.js';

/**
 * A turn whose replay differed from what was shown ends with the orchestrator's recorded answer,
 * never with the splice passed off as clean (docs/reliability.md #33, #37): /result is asked once,
 * its completed answer is what final and json print and what is recorded, and one warning line
 * goes to stderr in every mode, -q included, since the answer a script reads is at stake.
 */
export async function settleDiverged(deps: TurnDeps, t: Transcript, sessionId: string): Promise<Transcript> {
  const { ctx } = deps;
  let recorded: string | undefined;
  if (t.jobId !== null) {
    try {
      const s = await settle(deps, t.jobId);
      if (s?.kind === 'settled' && s.settlement.kind === 'completed' && s.settlement.answer !== '')
        recorded = s.settlement.answer;
    } catch (err) {
      if (ctx.signal.aborted) throw err;
    }
  }
  const shown = ctx.globals.output === 'text' ? 'the answer printed above is spliced from two texts; ' : '';
  const kept =
    recorded === undefined
      ? 'the orchestrator gave no recorded answer, so the splice is kept and the turn marked diverged'
      : "the orchestrator's recorded answer is the one kept";
  ctx.io.stderr.write(
    `nsed: warning: the replay after a reconnect differed from what was already shown; ${shown}${kept} (nsed sessions show ${oneLine(sessionId, 80)})\n`,
  );
  return divergedFrom(t, recorded);
}
