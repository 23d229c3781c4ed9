import type { NsedRound } from '../protocol/wire.js';
import type { CouncilVerdict } from './verdict.js';

/**
 * Whether the whole council voted: a degraded council (evaluators timed out, stand-in votes put in
 * their place) must not read like a healthy one. A pure function over what the server sent of the
 * turn: its scored rounds (`real_evals`/`synthetic_evals` of the native round summary) and the
 * verdict's ballots and synthetic share (from `/details`). Nothing is guessed: a figure no source
 * gave is null, and a council no source says anything of is `unknown`, never `complete`.
 */
export interface CouncilStatus {
  /**
   * complete: every evaluator voted; degraded: some votes were stand-ins; failed: the turn failed
   * or no evaluator voted; unknown: the server reported nothing of who voted.
   */
  status: 'complete' | 'degraded' | 'failed' | 'unknown';
  /** Evaluators in the council's final round. */
  asked: number | null;
  /** Of those, the ones that cast at least one real vote. */
  answered: number | null;
  /** The evaluators whose every final-round vote was a stand-in; null when the server did not say whose. */
  timed_out: string[] | null;
  /** Stand-in votes / all votes of the final round (the verdict's `trust.synthetic_share.final`). */
  synthetic_share: number | null;
}

export interface CouncilSources {
  readonly rounds: readonly NsedRound[];
  /** The turn's verdict once it ended; null while it runs (then the rounds alone speak). */
  readonly verdict: CouncilVerdict | null;
  /** The turn ended failed: it has no answer, whoever voted. */
  readonly failed: boolean;
}

const finite = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n);

export function councilStatus(src: CouncilSources): CouncilStatus {
  const scored = src.rounds.filter((r) => r.scored);
  const last = scored.at(-1);
  // Stand-in votes the round summaries counted, over every round: null when none reported a count.
  const counted = scored.flatMap((r) => r.candidates).filter((c) => finite(c.real_evals) || finite(c.synthetic_evals));
  const standIns = counted.length === 0 ? null : counted.reduce((n, c) => n + (c.synthetic_evals ?? 0), 0);
  const lastCounted = (last?.candidates ?? []).filter((c) => finite(c.real_evals) || finite(c.synthetic_evals));

  const matrix = src.verdict?.ballots?.matrix ?? null;
  let asked: number | null;
  let timedOut: string[] | null;
  if (matrix !== null && matrix.length > 0) {
    const evaluators = [...new Set(matrix.map((c) => c.evaluator))];
    asked = evaluators.length;
    // An evaluation /details does not flag counts as real, as the verdict counts it (ballots.ts isReal).
    timedOut = evaluators.filter((e) => matrix.filter((c) => c.evaluator === e).every((c) => c.synthetic === true));
  } else {
    // Without ballots the round summary counts stand-ins but names no one; every member proposes.
    asked = last === undefined || last.candidates.length === 0 ? null : last.candidates.length;
    timedOut = standIns === 0 ? [] : null;
  }
  const answered = asked !== null && timedOut !== null ? asked - timedOut.length : null;

  const lastReal = lastCounted.reduce((n, c) => n + (c.real_evals ?? 0), 0);
  const lastSynthetic = lastCounted.reduce((n, c) => n + (c.synthetic_evals ?? 0), 0);
  const syntheticShare =
    src.verdict !== null
      ? src.verdict.trust.synthetic_share.final
      : lastReal + lastSynthetic === 0
        ? null
        : Math.round((lastSynthetic / (lastReal + lastSynthetic)) * 1e4) / 1e4;

  const degraded =
    (timedOut?.length ?? 0) > 0 ||
    (syntheticShare ?? 0) > 0 ||
    (src.verdict?.trust.synthetic_share.all ?? 0) > 0 ||
    (standIns ?? 0) > 0;
  const known = timedOut !== null || syntheticShare !== null;
  const status: CouncilStatus['status'] =
    src.failed || answered === 0 || syntheticShare === 1
      ? 'failed'
      : degraded
        ? 'degraded'
        : known
          ? 'complete'
          : 'unknown';
  return { status, asked, answered, timed_out: timedOut, synthetic_share: syntheticShare };
}

/**
 * The one line a degraded or failed council's result starts with, saying who did not vote; null
 * for a council that voted in full or one the server said nothing of.
 */
export function councilLine(c: CouncilStatus): string | null {
  if (c.status !== 'degraded' && !(c.status === 'failed' && (c.timed_out?.length ?? 0) > 0)) return null;
  const share =
    c.synthetic_share === null ? '' : `, ${Math.round(c.synthetic_share * 100)}% of the final votes stand-ins`;
  const who =
    c.timed_out === null || c.timed_out.length === 0
      ? 'some votes were stand-ins for evaluators that timed out (the server did not say whose)'
      : `${c.timed_out.join(', ')} did not vote (timed out)`;
  const of = c.answered === null || c.asked === null ? '' : `; ${c.answered} of ${c.asked} answered`;
  return `council ${c.status}: ${who}${of}${share}`;
}
