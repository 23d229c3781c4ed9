import { convergenceByRound } from '../protocol/milestone.js';
import type { NsedRound, Verdict } from '../protocol/wire.js';
import { oneLine } from '../terminal/sanitize.js';
import type { Style } from '../terminal/style.js';

/** Colours for verdicts and emphasis on stdout; identity functions when colour is off. */
export interface Paint {
  bold(text: string): string;
  dim(text: string): string;
  verdict(v: Verdict, text: string): string;
}

export const plainPaint: Paint = { bold: (t) => t, dim: (t) => t, verdict: (_v, t) => t };

const BARS = '▁▂▃▄▅▆▇█';

/** One block per score: scores are clamped to [0, 1] (a signed aggregate below 0 draws as the floor). */
export function sparkline(scores: ReadonlyArray<number | undefined>): string {
  return scores
    .map((s) => {
      if (s === undefined || !Number.isFinite(s)) return ' ';
      const k = Math.round(Math.min(1, Math.max(0, s)) * (BARS.length - 1));
      return BARS[k] ?? ' ';
    })
    .join('');
}

/** Convergence per round: the one milestone parser's (re-exported here for the picture's readers). */
export { convergenceByRound };

/**
 * The deliberation of one answer at a glance: a row per agent with its score across the rounds
 * (a sparkline, then the numbers) and a star on the final leader, then convergence per round,
 * so a reader sees who led and whether the council agreed.
 */
export function roundPicture(
  rounds: readonly NsedRound[],
  reasoning: string | null,
  paint: Paint = plainPaint,
): string[] {
  if (rounds.length === 0) return [];
  const agents: string[] = [];
  for (const r of rounds) for (const c of r.candidates) if (!agents.includes(c.agent_id)) agents.push(c.agent_id);
  const last = rounds.at(-1);
  let leader: string | undefined;
  let best = -Infinity;
  for (const c of last?.candidates ?? []) if (c.score > best) [leader, best] = [c.agent_id, c.score];
  const width = Math.min(24, Math.max(11, ...agents.map((a) => oneLine(a, 24).length)));
  const cell = (v: string): string => v.padStart(5);
  const header = `  ${'round'.padEnd(width)} ${' '.repeat(rounds.length)}  ${rounds.map((r) => cell(String(r.round))).join('')}`;
  const out = [paint.dim(header)];
  for (const agent of agents) {
    const scores = rounds.map((r) => r.candidates.find((c) => c.agent_id === agent)?.score);
    const numbers = scores.map((s) => cell(s === undefined || !Number.isFinite(s) ? '–' : s.toFixed(2))).join('');
    const name = oneLine(agent, 24).padEnd(width);
    const star = agent === leader ? ' ★' : '';
    const row = `  ${name} ${sparkline(scores)}  ${numbers}${star}`;
    out.push(agent === leader ? paint.bold(row) : row);
  }
  const conv = convergenceByRound(reasoning);
  if (conv.size > 0) {
    const values = rounds.map((r) => conv.get(r.round));
    const cells = values.map((v) => cell(v === undefined ? '–' : `${Math.round(v * 100)}%`)).join('');
    out.push(`  ${'convergence'.padEnd(width)} ${sparkline(values)}  ${cells}`);
  }
  return out;
}

/** Verdicts in the colours a reader expects: verified green, contested yellow, wrong red, the rest dim. */
export function paintWith(style: Style): Paint {
  const byVerdict: Record<Verdict, (t: string) => string> = {
    verified: style.green,
    contested: style.yellow,
    wrong: style.red,
    unverified: style.dim,
    unknown: style.dim,
  };
  return { bold: style.bold, dim: style.dim, verdict: (v, t) => (byVerdict[v] ?? style.dim)(t) };
}
