import type { EventOf, NsedEvent } from '../events/events.js';
import { convergenceMilestones } from '../protocol/milestone.js';
import type { Candidate } from '../protocol/wire.js';
import { oneLine } from '../terminal/sanitize.js';
import { dollars, type Usage } from '../council/usage.js';

export type Phase = 'starting' | 'proposing' | 'evaluating' | 'consensus';

/** What a person watching a deliberation wants at a glance; folded from the turn's events. */
export interface ProgressState {
  phase: Phase;
  round: number;
  totalRounds: number;
  /** From the "Round N complete — convergence: 45%" milestone, when the server sends one. */
  convergence: number | undefined;
  /** What the line says of the latest scored round's leader (leaderText). */
  leader: string | undefined;
  /** The claims of all candidates judged wrong, and contested, in the latest scored round. */
  claims: RoundClaims;
  /** What the turn has cost so far, from the latest `usage` event (docs/ndjson.md §4d). */
  usage: Usage | undefined;
}

export const initialProgress: ProgressState = {
  phase: 'starting',
  round: 0,
  totalRounds: 0,
  convergence: undefined,
  leader: undefined,
  claims: { wrong: 0, contested: 0 },
  usage: undefined,
};

const ROUND = /^\s*round\s+(\d+)(?:\s*\/\s*(\d+))?/i;

/** The first highest score (ties keep the earlier candidate, as the round line does). */
export function leaderOf(candidates: readonly Candidate[]): Candidate | undefined {
  let leader: Candidate | undefined;
  for (const c of candidates) if (leader === undefined || c.score > leader.score) leader = c;
  return leader;
}

/**
 * The leader part of a round's line: `leader CortexA 0.82`; when the candidates are a selection
 * (`watch --agent`), each selected agent by its name and score, then the whole round's leader:
 * `CortexB 0.61 · leader CortexA 0.82`. Undefined when there is nothing to say.
 */
export function leaderText(e: Pick<EventOf<'round'>, 'candidates' | 'leader'>): string | undefined {
  const shown = (c: { agent_id: string; score: number }): string =>
    `${oneLine(c.agent_id, 40)} ${Number.isFinite(c.score) ? c.score.toFixed(2) : '?'}`;
  if (e.leader === undefined) {
    const leader = leaderOf(e.candidates);
    return leader === undefined ? undefined : `leader ${shown(leader)}`;
  }
  const parts = e.candidates.map(shown);
  if (e.leader !== null) parts.push(`leader ${shown(e.leader)}`);
  return parts.length === 0 ? undefined : parts.join(' · ');
}

/**
 * One word per count (docs/ndjson.md "The verdict"): a round's counts are of the claims of ALL
 * its candidates, wrong and contested apart, and always shown with those words; the gates, the
 * verdict line and `--annotate` count the claims of the chosen proposal only, and say so.
 */
export interface RoundClaims {
  wrong: number;
  contested: number;
  /**
   * The agents whose candidates were counted, when the round's candidates are a selection
   * (`watch --agent`): then the counts are theirs alone, and the words say so. Absent: all.
   */
  of?: readonly string[];
}

/** The counts of a round's candidates; of the selected agents' only when they are a selection (a round with `leader`). */
export function roundClaims(e: Pick<EventOf<'round'>, 'candidates' | 'leader'>): RoundClaims {
  const count = (v: 'wrong' | 'contested'): number =>
    e.candidates.reduce((n, c) => n + c.claims.filter((k) => k.verdict === v).length, 0);
  const counts = { wrong: count('wrong'), contested: count('contested') };
  return e.leader === undefined ? counts : { ...counts, of: e.candidates.map((c) => c.agent_id) };
}

/**
 * `all candidates: 1 wrong, 2 contested`: the words every progress line uses for a round's counts;
 * under `watch --agent`, `claims of CortexB: 1 wrong, 2 contested`, as they are not all candidates'.
 */
export function roundClaimsText(c: RoundClaims): string {
  const counts = `${c.wrong} wrong, ${c.contested} contested`;
  if (c.of === undefined) return `all candidates: ${counts}`;
  const whose = c.of.length === 0 ? 'the selected agents' : c.of.map((a) => oneLine(a, 40)).join(', ');
  return `claims of ${whose}: ${counts}`;
}

const anyClaims = (c: RoundClaims): boolean => c.wrong > 0 || c.contested > 0;

/**
 * Folds one event. The phase comes from what the protocol carries: unscored rounds are proposals
 * arriving, a milestone naming evaluations (or a scored round) means the council is judging, and
 * the answer's first text, a consensus milestone or a finalized pick mean it has agreed.
 */
export function advanceProgress(s: ProgressState, e: NsedEvent): ProgressState {
  switch (e.type) {
    case 'round': {
      const next: ProgressState = { ...s, round: e.round, totalRounds: e.total_rounds };
      if (!e.scored) return { ...next, phase: 'proposing' };
      return {
        ...next,
        phase: 'evaluating',
        leader: leaderText(e) ?? s.leader,
        claims: roundClaims(e),
      };
    }
    case 'reasoning': {
      const found = convergenceMilestones(e.text).at(-1);
      if (found !== undefined) return { ...s, convergence: found.value };
      if (/^\s*consensus\b/i.test(e.text)) return { ...s, phase: 'consensus' };
      // A milestone such as "Round 2/3 — proposals from …" opens a phase before its first round event.
      const at = ROUND.exec(e.text);
      const round =
        at === null ? {} : { round: Number(at[1]), totalRounds: at[2] === undefined ? s.totalRounds : Number(at[2]) };
      if (/\bevaluations?\b/i.test(e.text)) return { ...s, ...round, phase: 'evaluating' };
      if (/\bproposals?\b/i.test(e.text)) return { ...s, ...round, phase: 'proposing' };
      return s;
    }
    case 'text':
    case 'finalized':
      return s.phase === 'consensus' ? s : { ...s, phase: 'consensus' };
    case 'usage':
      return { ...s, usage: e.usage };
    default:
      return s;
  }
}

/**
 * `proposing · round 2/5 · 12s · $0.042 · convergence 45% · leader CortexA 0.47 · all candidates:
 * 0 wrong, 2 contested`. The cost shows once a `usage` event says what it is, next to the time so
 * a narrow terminal keeps it; while it is unknown the line says nothing of it, never $0.
 */
export function progressLine(s: ProgressState, elapsedMs: number): string {
  const parts: string[] = [s.phase === 'starting' ? 'deliberating' : s.phase];
  if (s.round > 0) parts.push(`round ${s.round}/${s.totalRounds}`);
  parts.push(`${Math.max(0, Math.floor(elapsedMs / 1000))}s`);
  if (s.usage !== undefined && s.usage.cost_usd !== null) parts.push(dollars(s.usage));
  if (s.convergence !== undefined) parts.push(`convergence ${Math.round(s.convergence * 100)}%`);
  if (s.leader !== undefined) parts.push(s.leader);
  if (anyClaims(s.claims)) parts.push(roundClaimsText(s.claims));
  return parts.join(' · ');
}

/**
 * The line after an answer on a terminal: the session id and the command that continues it,
 * so the id is on screen when the deliberation has scrolled away.
 */
export function continueHint(session: string): string {
  const id = oneLine(session, 80);
  return `session ${id} · continue: nsed continue -s ${id} "…"`;
}

/**
 * The error a turn ends with when the council waits for results nsed could not give (exit 10):
 * one wording for the live run and for `nsed render`, which rebuilds it from the stream.
 */
export function waitingMessage(calls: ReadonlyArray<{ id: string; name: string }>): string {
  return `the council waits for the result of ${calls.map((c) => `${c.name} (${c.id})`).join(', ')}`;
}
