import type { Verdict as ClaimVerdict } from '../../protocol/wire.js';
import type { CouncilVerdict, GateCheck, GateResult, VerdictCounts } from '../../council/verdict.js';
import { leaderOf } from '../progress-state.js';
import { bytes, cell, clip, code, codeCell, fitLines, inline, percent, score, table } from './markdown-cells.js';
import type { ReportTurn } from './report-turn.js';
import { totalWords, usageWords } from '../usage-words.js';
import { GATE_MEASURE } from '../gate-lines.js';
import {
  claimsByVerdict,
  dissentWords,
  endorseWords,
  GATE_EXPECT,
  gateValue,
  syntheticWords,
  VERDICT_ORDER,
} from './verdict-cells.js';

/** GitHub refuses a step summary over 1 MiB (and shows none of it); a report stays below. */
export const SUMMARY_LIMIT_BYTES = 1024 * 1024;

/**
 * Each part's share of the limit. Together they leave room for the fixed parts (title, gates,
 * verdict), so the whole stays under the limit whatever the server sent.
 */
const BUDGET = {
  question: 8 * 1024,
  answer: 480 * 1024,
  rounds: 128 * 1024,
  scores: 16 * 1024,
  claims: 192 * 1024,
  ballots: 32 * 1024,
  injections: 32 * 1024,
  tools: 32 * 1024,
};

/** Claim verdicts in the order a reader needs them: what is wrong first. */
const VERDICT_MARK: Record<ClaimVerdict, string> = {
  wrong: '✗ wrong',
  contested: '⚠ contested',
  unverified: '? unverified',
  unknown: '? unknown',
  verified: '✓ verified',
};

/**
 * `--summary FILE` and `export --format summary`: the turn as GitHub-flavoured markdown for
 * `$GITHUB_STEP_SUMMARY` (README "CI"): the outcome and the gate checks first, then the
 * verdict, the question and answer, convergence per round, the chosen proposal's claims by
 * verdict, injections and tool calls. Every part has its own byte budget and says when it was
 * cut, so the whole is always under GitHub's 1 MiB limit and never silently short.
 */
export function summaryMarkdown(t: ReportTurn, verdict: CouncilVerdict | null, gate: GateResult | null): string {
  const out: string[] = [`## nsed · ${outcome(t, gate)}`, '', meta(t), ''];
  if (t.error !== null && t.status !== 'complete') out.push(`> **${t.status}:** ${inline(t.error)}`, '');
  out.push('### Gates', '', ...gateLines(t, gate), '');
  out.push('### Verdict', '', ...verdictLines(verdict), '');
  out.push('### Cost', '', ...costLines(t), '');
  out.push('### Question', '', ...quoted(t), '');
  out.push('### Answer', '', ...answerLines(t), '');
  out.push('### Convergence by round', '', ...roundLines(t, verdict), '');
  out.push('### Claims of the chosen proposal', '', ...claimLines(t, verdict), '');
  if (verdict?.ballots != null)
    out.push(`### Ballots of round ${verdict.ballots.round}`, '', ...ballotLines(t, verdict), '');
  if (t.injections.length > 0) out.push('### Injections', '', ...injectionLines(t), '');
  if (t.toolCalls.length > 0) out.push('### Tool calls', '', ...toolLines(t), '');
  const text = `${out.join('\n').replace(/\n+$/, '')}\n`;
  // The budgets make this unreachable; it is the limit itself, kept even if they drift.
  if (bytes(text) <= SUMMARY_LIMIT_BYTES) return text;
  const { kept } = fitLines(text.split('\n'), SUMMARY_LIMIT_BYTES - 512);
  return `${kept.join('\n')}\n\n${truncated(t, 'the summary')}\n`;
}

function outcome(t: ReportTurn, gate: GateResult | null): string {
  if (t.status !== 'complete') return `✗ deliberation ${t.status}`;
  if (gate === null) return 'deliberation completed';
  if (gate.status === 'pass') return '✓ gates passed';
  return gate.status === 'fail' ? '✗ gate failed' : '✗ gate inconclusive';
}

function meta(t: ReportTurn): string {
  const parts = [`session ${code(t.session)}`];
  if (t.jobId !== null) parts.push(`job ${code(t.jobId)}`);
  if (t.policy !== null) parts.push(`policy ${code(t.policy)}`);
  if (t.ts !== null) parts.push(inline(t.ts, 40));
  return parts.join(' · ');
}

/** How to see what a cut left out. */
function truncated(t: ReportTurn, what: string): string {
  const whole = t.saved
    ? `the whole turn: ${code(`nsed sessions export ${t.session} --format markdown`, 200)}`
    : 'the run was not saved (--no-save)';
  return `> **Truncated:** ${what}, to stay under GitHub's 1 MiB summary limit; ${whole}.`;
}

function capped(t: ReportTurn, lines: readonly string[], budget: number, what: (dropped: number) => string): string[] {
  const { kept, dropped } = fitLines(lines, budget);
  return dropped === 0 ? kept : [...kept, '', truncated(t, what(dropped))];
}

export function gateMark(status: GateCheck['status']): string {
  return status === 'pass' ? '✓ pass' : status === 'fail' ? '✗ fail' : '✗ inconclusive';
}

function gateLines(t: ReportTurn, gate: GateResult | null): string[] {
  // A turn that did not complete has no answer to judge: whatever gates were set, none was judged.
  if (gate === null && t.status !== 'complete')
    return [`_No gate was judged: the turn ${t.status === 'failed' ? 'failed' : `was ${t.status}`} before an answer._`];
  if (gate === null) return ['_No gates were set for this turn._'];
  if (gate.checks.length === 0) return ['_The gate had no checks._'];
  return table(
    ['Check', 'Measures', 'Expected', 'Actual', 'Result'],
    gate.checks.map((c) => [
      codeCell(c.name),
      GATE_MEASURE[c.name],
      `${GATE_EXPECT[c.name] ?? ''} ${gateValue(c.name, c.expected)}`,
      gateValue(c.name, c.actual),
      gateMark(c.status),
    ]),
  );
}

export function countsLine(c: VerdictCounts | null): string {
  if (c === null) return 'not reported';
  return VERDICT_ORDER.map((v) => `${c[v] ?? 0} ${v}`).join(' · ');
}

function verdictLines(v: CouncilVerdict | null): string[] {
  if (v === null) return ['_No verdict was recorded for this turn._'];
  const chosen =
    v.chosen === null
      ? 'not reported'
      : `**${inline(v.chosen.agent, 80)}**, score ${score(v.chosen.score)} (from ${v.chosen.source.replace('_', ' ')})`;
  const runnerUp =
    v.runner_up === null ? 'not reported' : `${inline(v.runner_up.agent, 80)}, score ${score(v.runner_up.score)}`;
  const held =
    v.convergence.held === null
      ? ''
      : `, held for ${v.convergence.held} final round${v.convergence.held === 1 ? '' : 's'}`;
  const rounds = `${v.rounds.completed ?? 'not reported'} completed of ${v.rounds.planned ?? 'not reported'} planned`;
  const dissent = dissentWords(v, (a) => inline(a, 80));
  const scores =
    v.scores === null
      ? 'not reported'
      : Object.entries(v.scores)
          .sort((a, b) => b[1] - a[1])
          .map(([agent, s]) => `${inline(agent, 80)} ${score(s)}`)
          .join(' · ');
  return [
    `- Chosen: ${chosen}`,
    `- Runner-up: ${runnerUp}`,
    `- Margin: ${score(v.margin)}`,
    `- Convergence: ${percent(v.convergence.final)}${held}`,
    `- Rounds: ${rounds}`,
    `- Claims of the chosen proposal: ${countsLine(v.claims?.chosen_counts ?? null)}`,
    `- Claims of all final candidates: ${countsLine(v.claims?.all_counts ?? null)}`,
    `- Dissent: ${dissent}`,
    `- Endorsed by: ${endorseWords(v.trust)}`,
    `- Agreement on claims (kappa): ${v.trust.agreement === null ? 'not reported' : score(v.trust.agreement)}`,
    `- Synthetic evaluations: ${syntheticWords(v.trust)}`,
    `- Final scores: ${clip(scores, BUDGET.scores)}`,
  ];
}

/** This answer's cost and the session's; an unknown cost is said to be unknown, never $0 (docs/ndjson.md §4d). */
function costLines(t: ReportTurn): string[] {
  const lines = [`- This answer: ${t.usage === null ? 'cost not recorded' : usageWords(t.usage)}`];
  if (t.sessionUsage !== null && t.sessionUsage.turns > 1) lines.push(`- The session: ${totalWords(t.sessionUsage)}`);
  return lines;
}

/** The question as a block quote, within its budget; a cut says so and closes a fence it left open. */
function quoted(t: ReportTurn): string[] {
  if (t.question.trim() === '') return ['_(no question recorded)_'];
  const text = t.question.replace(/\s+$/, '');
  const lines = text.split('\n');
  const quote = (l: string): string => `> ${l.replaceAll('<', '&lt;')}`;
  const { kept, dropped } = fitLines(lines.map(quote), BUDGET.question);
  if (dropped === 0) return kept;
  // One line longer than the whole budget: its first characters (4 bytes each at most, escaped).
  const head =
    kept.length > 0
      ? kept
      : [
          quote(
            Array.from(lines[0] ?? '')
              .slice(0, BUDGET.question / 8)
              .join(''),
          ),
        ];
  const fence = openFence(head.map((l) => l.slice(2)));
  const what = kept.length > 0 ? `${dropped} of ${lines.length} lines left out` : 'cut inside its first line';
  return [...head, ...(fence === undefined ? [] : [`> ${fence}`]), '', truncated(t, `the question (${what})`)];
}

function answerLines(t: ReportTurn): string[] {
  if (t.answer.trim() === '') return ['_(no answer)_'];
  const lines = escapeHtml(demoteHeadings(t.answer.replace(/\s+$/, '').split('\n')));
  const { kept, dropped } = fitLines(lines, BUDGET.answer);
  if (dropped === 0) return kept;
  // A cut inside a fenced block would turn the rest of the summary into code.
  const fence = openFence(kept);
  return [
    ...kept,
    ...(fence === undefined ? [] : [fence]),
    '',
    truncated(t, `the answer (${dropped} of ${lines.length} lines left out)`),
  ];
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

/** The fence that closes the fenced block `lines` leave open, if they leave one open. */
function openFence(lines: readonly string[]): string | undefined {
  let open: string | undefined;
  for (const l of lines) {
    const marker = FENCE.exec(l)?.[1];
    if (marker === undefined) continue;
    if (open === undefined) open = marker;
    else if (marker[0] === open[0] && marker.length >= open.length) open = undefined;
  }
  return open;
}

/**
 * The answer's raw HTML made text, as the rounds' and claims' is (`<` as `&lt;`): an `<img src>`
 * an agent wrote is not fetched by whoever opens the summary. Fenced blocks and inline code show
 * their text as it is already, so they are left alone.
 */
function escapeHtml(lines: readonly string[]): string[] {
  let fence: string | undefined;
  return lines.map((l) => {
    const marker = FENCE.exec(l)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return l;
    }
    return fence === undefined ? escapeOutsideCodeSpans(l) : l;
  });
}

function escapeOutsideCodeSpans(line: string): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    const tick = line.indexOf('`', i);
    if (tick === -1) return out + line.slice(i).replaceAll('<', '&lt;');
    out += line.slice(i, tick).replaceAll('<', '&lt;');
    let end = tick;
    while (line[end] === '`') end++;
    const close = line.indexOf(line.slice(tick, end), end);
    // An unmatched run of backticks is text: go on after it.
    const upTo = close === -1 ? end : close + (end - tick);
    out += line.slice(tick, upTo);
    i = upTo;
  }
  return out;
}

/**
 * The answer's own headings, two levels down (at most `######`), outside fenced code: an answer
 * that opens with `## Title` stays under the summary's `### Answer` instead of beside it.
 */
function demoteHeadings(lines: readonly string[]): string[] {
  let fenced = false;
  return lines.map((l) => {
    if (/^\s{0,3}(```|~~~)/.test(l)) fenced = !fenced;
    if (fenced) return l;
    const m = /^ {0,3}(#{1,6})(\s.*|)$/.exec(l);
    if (m === null) return l;
    return `${'#'.repeat(Math.min(6, (m[1] ?? '').length + 2))}${m[2] ?? ''}`;
  });
}

function roundLines(t: ReportTurn, v: CouncilVerdict | null): string[] {
  const convergence = new Map((v?.convergence.per_round ?? []).map((r) => [r.round, r.value]));
  const numbers = [...new Set([...t.rounds.map((r) => r.round), ...convergence.keys()])].sort((a, b) => a - b);
  if (numbers.length === 0) return ['_No round was reported._'];
  const rows = numbers.map((n) => {
    const r = t.rounds.find((x) => x.round === n);
    const leader = r === undefined ? undefined : leaderOf(r.candidates);
    const count = (verdict: ClaimVerdict): string =>
      r === undefined
        ? '—'
        : String(r.candidates.reduce((k, c) => k + c.claims.filter((x) => x.verdict === verdict).length, 0));
    return [
      r === undefined ? String(n) : `${n}/${r.total_rounds}`,
      convergence.has(n) ? percent(convergence.get(n)) : '—',
      leader === undefined ? '—' : cell(leader.agent_id, 60),
      leader === undefined ? '—' : score(leader.score),
      r === undefined ? '—' : String(r.candidates.length),
      count('wrong'),
      count('contested'),
    ];
  });
  const lines = table(
    ['Round', 'Convergence', 'Leader', 'Score', 'Candidates', 'Wrong (all candidates)', 'Contested (all candidates)'],
    rows,
  );
  return capped(t, lines, BUDGET.rounds, (d) => `the round table (${d} of ${rows.length} rounds left out)`);
}

function claimLines(t: ReportTurn, v: CouncilVerdict | null): string[] {
  if (v === null || v.claims?.chosen == null) return ['_Not reported._'];
  const lines: string[] = [];
  for (const { verdict, claims } of claimsByVerdict(v)) {
    lines.push(`#### ${VERDICT_MARK[verdict]} (${claims.length})`, '');
    for (const c of claims)
      lines.push(`- ${inline(c.claim, 1000)}${c.reason === null ? '' : ` — _${inline(c.reason, 1000)}_`}`);
    lines.push('');
  }
  if (lines.length === 0) return ['_The chosen proposal made no claims._'];
  return capped(t, lines, BUDGET.claims, () => 'the claims');
}

/** Who voted how on the chosen proposal: a row per evaluator, stand-ins marked. */
function ballotLines(t: ReportTurn, v: CouncilVerdict): string[] {
  const rows = (v.ballots?.chosen ?? []).map((b) => [
    cell(b.evaluator, 80),
    b.stance === null ? 'not reported' : b.stance.replace('_', ' '),
    score(b.score),
    b.synthetic === true ? 'yes (a stand-in)' : b.synthetic === false ? 'no' : 'not reported',
    b.claims.length === 0 ? '—' : b.claims.map((c) => `${c.verdict}`).join(', '),
    cell(b.disagreements[0]?.position ?? b.reason ?? '', 160),
  ]);
  if (rows.length === 0) return ['_No evaluation of the chosen proposal was reported._'];
  const lines = table(['Evaluator', 'Stance', 'Score', 'Synthetic', 'Claim verdicts', 'Position'], rows);
  return capped(t, lines, BUDGET.ballots, (d) => `the ballots (${d} of ${rows.length} left out)`);
}

function injectionLines(t: ReportTurn): string[] {
  const lines = t.injections.map((i) => {
    const where = [i.round === null ? '' : `round ${i.round}`, i.sequence === null ? '' : `#${i.sequence}`]
      .filter((p) => p !== '')
      .join(', ');
    return `- ${where === '' ? '' : `${where}: `}${inline(i.message, 1000)}`;
  });
  return capped(t, lines, BUDGET.injections, (d) => `the injections (${d} left out)`);
}

function toolLines(t: ReportTurn): string[] {
  const rows = t.toolCalls.map((c) => [
    codeCell(c.name, 60),
    codeCell(c.arguments, 200),
    c.status === undefined ? 'waiting' : cell(c.status, 20),
    c.exit_code == null ? '—' : String(c.exit_code),
    c.result === undefined ? '—' : cell(c.result, 200),
  ]);
  const lines = table(['Tool', 'Arguments', 'Status', 'Exit', 'Result'], rows);
  return capped(t, lines, BUDGET.tools, (d) => `the tool calls (${d} left out)`);
}
