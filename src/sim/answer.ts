import type { Angle } from './agents.js';
import type { CouncilMember, Influences, RoundOutcome } from './council.js';
import { ANGLE_LABEL } from './phrases.js';
import { type TextContext, shorten } from './text-context.js';

const INTROS: Record<Angle, string> = {
  simplicity:
    'The council recommends keeping {topic} deliberately simple and growing it only when measurements ask for more.',
  performance:
    'The council recommends shaping {topic} around its hot path: keep the common case fast and move slow work out of the way.',
  safety:
    'The council recommends building {topic} to fail safe: validate at the boundary, bound every retry, and keep state crash-consistent.',
  cost: 'The council recommends sizing {topic} for the load you actually have and paying only for what runs.',
  maintainability:
    'The council recommends structuring {topic} so it stays easy to change, with narrow interfaces and readable tests.',
  observability: 'The council recommends making {topic} observable first, so every later decision rests on numbers.',
};

const NEXT_STEPS: Record<Angle, string> = {
  simplicity:
    'Next step: build the smallest version, put it in front of real use, and let measurements of {t2} decide what to add.',
  performance:
    'Next step: benchmark the hot path with realistic data for {t2} before and after each change, and keep the numbers.',
  safety:
    'Next step: write the failure tests first (bad input, a crash mid-write, a slow dependency around {t2}), then the happy path.',
  cost: 'Next step: put a price on each component, starting with {t2}, and drop the ones nobody would pay for.',
  maintainability: 'Next step: sketch the module boundaries around {t2}, then write the tests that pin each one down.',
  observability: 'Next step: add the metrics and logs for {t2} first, then tune with the numbers in hand.',
};

export interface AnswerInput {
  text: TextContext;
  members: CouncilMember[];
  final: RoundOutcome;
  totalRounds: number;
  influences: Influences;
}

/** The winning answer: a short markdown document built from the final round. */
export function composeAnswer(a: AnswerInput): string {
  const t = a.text;
  const winner = a.members.find((m) => m.id === a.final.leader) ?? a.members[0];
  const angle: Angle = winner?.angle ?? 'simplicity';
  const out: string[] = [`## ${t.title}`, ''];
  out.push(INTROS[angle].replace('{topic}', t.topic));
  if (t.earlier !== '') out.push('', `This builds on the earlier question (“${t.earlier}”) and keeps its conclusions.`);
  out.push('', 'Key points from the deliberation:', '');
  for (const m of a.members) {
    const proposal = a.final.proposals.find((p) => p.agent_id === m.id);
    if (proposal) out.push(`- **${ANGLE_LABEL[m.angle]}** (${m.id}): ${proposal.advice}`);
  }
  for (const g of a.influences.guidance) {
    out.push(
      '',
      `**Guidance applied.** You asked: “${shorten(g, 200)}”. The final round reweighted the proposals accordingly, so that priority comes first wherever it conflicts with the points above.`,
    );
  }
  for (const r of a.influences.toolResults) {
    out.push(
      '',
      `**Tool result.** \`${r.name}\` returned “${shorten(r.content, 300)}”. The council takes that value as given in the recommendation above.`,
    );
  }
  const doubt = a.final.candidates
    .flatMap((c) => c.claims)
    .find((c) => c.verdict === 'contested' || c.verdict === 'wrong');
  if (doubt)
    out.push(
      '',
      `**Open question:** “${doubt.claim}” was ${doubt.verdict} in the last round (${doubt.reason ?? 'no reason given'}).`,
    );
  out.push('', NEXT_STEPS[angle].replace('{t2}', t.t2));
  const score = a.final.scores.find((s) => s.agent_id === a.final.leader)?.score ?? 0;
  out.push(
    '',
    `_Chosen: ${a.final.leader}'s proposal (score ${score.toFixed(2)}) after ${a.totalRounds} round${a.totalRounds === 1 ? '' : 's'}; convergence ${Math.round(a.final.convergence * 100)}%._`,
  );
  return out.join('\n');
}

/** A passthrough or moderator reply: one agent, one short answer, no rounds. */
export function composeInstantAnswer(text: TextContext, mode: 'passthrough' | 'moderator', agent: string): string {
  // The ellipsis as an escape, as sim/question-hints.ts writes its quotes.
  if (mode === 'moderator')
    return `${text.title.replace(/[?.!\u2026]+$/, '')} — in short: ${text.topic}, with ${text.t2} and ${text.t3} as the points to settle.`;
  return `${agent} answers directly: for ${text.topic}, start with the simplest setup that works, check ${text.t2} early, and revisit ${text.t3} once the basics hold.`;
}

/**
 * Splits text into stream fragments at word boundaries, roughly 40 to 80 characters each.
 * Whitespace stays attached to the word before it, so the fragments concatenate back exactly.
 */
export function chunkText(text: string, min = 40, max = 80): string[] {
  const tokens = text.match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  let current = '';
  for (const tok of tokens) {
    if (current.length >= min && current.length + tok.length > max) {
      out.push(current);
      current = '';
    }
    current += tok;
  }
  if (current !== '') out.push(current);
  return out;
}

/**
 * Fault `answer-bytes=N`: `prose` run on with numbered appendix sections until it holds at least
 * N bytes, each section saying where it stands, so a client that cuts the answer can be checked
 * for where it cut and that the rest is the rest.
 */
export function runOn(prose: string, bytes: number): string {
  const parts = [prose];
  let size = Buffer.byteLength(prose, 'utf8');
  for (let n = 1; size < bytes; n++) {
    const section = `\n\n### Appendix ${n}\n\nSection ${n} of the long answer: the council kept this detail for the record; it repeats the reasoning above in other words, so nothing in it is new.`;
    parts.push(section);
    size += Buffer.byteLength(section, 'utf8');
  }
  return parts.join('');
}
