import type { Candidate, NsedRound, Verdict as ClaimVerdict } from '../../protocol/wire.js';
import type { Session } from '../../session/index.js';
import type { CouncilVerdict, GateResult, VerdictCounts } from '../../council/verdict.js';
import { leaderOf } from '../progress-state.js';
import { axisFor, lineChart, PALETTE, type Series } from './html/charts.js';
import { esc, markdownHtml } from './html/escape.js';
import { REPORT_CSS } from './html/style.js';
import { sessionDocument, type SessionDocument, type TurnDocument } from './json.js';
import { percent, score } from './markdown-cells.js';
import { GATE_MEASURE } from '../gate-lines.js';
import { totalWords, usageWords } from '../usage-words.js';
import {
  claimsByVerdict,
  dissentWords,
  endorseWords,
  GATE_EXPECT,
  gateValue,
  syntheticWords,
  VERDICT_ORDER,
} from './verdict-cells.js';

/**
 * The second wall behind the escaping: even if some text slipped through as markup, the page may
 * run no script and fetch nothing (styles are inline, images only `data:`), and no form or
 * `<base>` can point it elsewhere.
 */
export const REPORT_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** A proposal longer than this is shown cut in its summary line; the whole text is one click away. */
const TEASER_CHARS = 140;

/**
 * `export --format html` and `--html FILE`: the session as one self-contained page (README
 * "Reports"). At the top the last answer: its question, the answer as sanitised Markdown, the
 * council's verdict and gate checks, and inline SVG charts of convergence and of each agent's
 * score per round. Below it every turn in order, each deliberation round by round: candidates
 * with score, claims in verdict colours and the proposal collapsed; injections in the round
 * they landed in; tool calls with their results. No script, no external resource.
 */
export function htmlReport(s: Session, opts: { saved?: boolean } = {}): string {
  const doc = sessionDocument(s);
  const featured = doc.turns.findLastIndex((t) => t.role === 'assistant' && t.kind === 'message');
  const body: string[] = [pageHeader(doc, opts.saved !== false)];
  body.push('<main>');
  const answer = doc.turns[featured];
  if (answer !== undefined) body.push(featuredSection(doc, featured, answer));
  else body.push('<p class="muted">This session has no answer yet.</p>');
  body.push('<section aria-labelledby="turns-h"><h2 id="turns-h">Turns</h2>');
  doc.turns.forEach((t, i) => body.push(turnArticle(doc, i, t, i === featured)));
  if (doc.turns.length === 0) body.push('<p>No turn was recorded.</p>');
  body.push('</section></main>');
  body.push(
    `<footer>Written by nsed from session <code>${esc(doc.id)}</code>. A static page: it runs no script and loads nothing.</footer>`,
  );
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${esc(titleOf(doc))} · nsed</title>`,
    `<style>${REPORT_CSS}</style>`,
    '</head>',
    '<body>',
    ...body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

const titleOf = (doc: SessionDocument): string => (doc.title.trim() === '' ? doc.id : doc.title.trim());

function pageHeader(doc: SessionDocument, saved: boolean): string {
  const items = [
    `session <b class="mono">${esc(doc.id)}</b>${saved ? '' : ' (not saved)'}`,
    ...(doc.policy === null ? [] : [`policy <b class="mono">${esc(doc.policy)}</b>`]),
  ];
  if (doc.council !== null) {
    const parts = [
      doc.council.agents === null ? '' : doc.council.agents.join(', '),
      doc.council.rounds === null ? '' : `${doc.council.rounds} rounds`,
    ].filter((p) => p !== '');
    items.push(`council <b>${esc(parts.join(' · '))}</b>`);
  }
  items.push(`created <time>${esc(doc.created)}</time>`, `updated <time>${esc(doc.updated)}</time>`);
  items.push(`state <b>${esc(doc.state)}</b>`);
  // What the answers cost together; unknown ones are counted apart, never as $0 (docs/ndjson.md §4d).
  if (doc.usage.turns > 0) items.push(`<span class="usage total">${esc(totalWords(doc.usage))}</span>`);
  if (doc.forked_from !== null) items.push(`forked from <b class="mono">${esc(doc.forked_from.session)}</b>`);
  return `<header class="page"><h1>${esc(titleOf(doc))}</h1><ul class="meta">${items.map((i) => `<li>${i}</li>`).join('')}</ul></header>`;
}

/** The question this answer answers: the last user message before it. */
function questionOf(doc: SessionDocument, index: number): TurnDocument | undefined {
  return doc.turns.slice(0, index).findLast((u) => u.role === 'user' && u.kind === 'message');
}

function featuredSection(doc: SessionDocument, index: number, t: TurnDocument): string {
  const question = questionOf(doc, index);
  const out: string[] = ['<section id="answer" aria-labelledby="answer-h">'];
  out.push('<h2 id="answer-h">Question</h2>');
  out.push(
    question === undefined
      ? '<p>(no question recorded)</p>'
      : `<blockquote class="text question">${esc(question.content)}</blockquote>`,
  );
  out.push(`<h2>Answer ${statusBadge(t.status)}</h2>`, turnMeta(t));
  if (t.error !== null && t.status !== 'complete') out.push(`<p class="error">${esc(t.error)}</p>`);
  out.push(`<div class="answer">${t.content.trim() === '' ? '<p>(no answer)</p>' : markdownHtml(t.content)}</div>`);
  // The picture first: the facts, the charts and the gates, then the claims one by one.
  out.push('<h2>Verdict</h2>', verdictFacts(t.verdict, charts(`t${index}`, t) + gateTable(t.gate)));
  out.push(`<p><a href="#turn-${index + 1}">The deliberation round by round</a></p>`);
  out.push('</section>');
  return out.join('\n');
}

function turnMeta(t: TurnDocument): string {
  const items: string[] = [];
  if (t.policy !== null) items.push(`policy <b class="mono">${esc(t.policy)}</b>`);
  if (t.job_id !== null) items.push(`job <b class="mono">${esc(t.job_id)}</b>`);
  if (t.ts !== '') items.push(`<time>${esc(t.ts)}</time>`);
  if (t.path !== null) items.push(`${esc(t.path)} path`);
  if (t.role === 'assistant' && t.kind === 'message')
    items.push(`<span class="usage">${esc(t.usage === null ? 'cost not recorded' : usageWords(t.usage))}</span>`);
  if (t.diverged) items.push('<b class="v-contested">the resumed replay differed from what was shown</b>');
  return items.length === 0 ? '' : `<ul class="meta">${items.map((i) => `<li>${i}</li>`).join('')}</ul>`;
}

const statusBadge = (status: string): string =>
  status === 'complete' ? '' : `<span class="badge st-${esc(status)}">${esc(status)}</span>`;

/** The verdict as facts, then `middle` (charts, gates), then the chosen proposal's claims. */
function verdictFacts(v: CouncilVerdict | null, middle: string): string {
  if (v === null) return `<p>No verdict was recorded for this turn.</p>${middle}`;
  const rows: Array<[string, string]> = [];
  const held =
    v.convergence.held === null
      ? ''
      : `, held for ${v.convergence.held} final round${v.convergence.held === 1 ? '' : 's'}`;
  rows.push(['Convergence', `${esc(percent(v.convergence.final))}${held}`]);
  rows.push([
    'Chosen',
    v.chosen === null
      ? 'not reported'
      : `<b>${esc(v.chosen.agent)}</b>, score ${score(v.chosen.score)} <span class="reason">(from ${esc(v.chosen.source.replace('_', ' '))})</span>`,
  ]);
  rows.push([
    'Runner-up',
    v.runner_up === null ? 'not reported' : `${esc(v.runner_up.agent)}, score ${score(v.runner_up.score)}`,
  ]);
  rows.push(['Margin', score(v.margin)]);
  rows.push([
    'Rounds',
    `${v.rounds.completed ?? 'not reported'} completed of ${v.rounds.planned ?? 'not reported'} planned`,
  ]);
  rows.push(['Claims of the chosen proposal', countsList(v.claims?.chosen_counts ?? null)]);
  rows.push(['Claims of all final candidates', countsList(v.claims?.all_counts ?? null)]);
  rows.push(['Dissent', dissentWords(v, esc)]);
  rows.push(['Endorsed by', endorseWords(v.trust)]);
  rows.push(['Agreement on claims (kappa)', v.trust.agreement === null ? 'not reported' : score(v.trust.agreement)]);
  rows.push(['Synthetic evaluations', syntheticWords(v.trust)]);
  const out = [`<dl class="facts verdict">${rows.map(([k, d]) => `<dt>${k}</dt><dd>${d}</dd>`).join('')}</dl>`, middle];
  const matrix = ballotMatrix(v);
  if (matrix !== '') out.push(matrix);
  if (v.claims?.chosen != null) {
    const items = claimsByVerdict(v).flatMap(({ verdict, claims }) =>
      claims.map((c) => claimItem(verdict, c.claim, c.reason)),
    );
    if (items.length > 0)
      out.push('<h3>Claims of the chosen proposal</h3>', `<ul class="claims">${items.join('')}</ul>`);
  }
  return out.join('\n');
}

/**
 * The final round's ballots: a row per evaluator, a column per proposal, each cell the score the
 * evaluator gave, coloured by its stance; a synthetic stand-in is hatched and marked "synthetic".
 */
function ballotMatrix(v: CouncilVerdict): string {
  const b = v.ballots;
  if (b === null || b.matrix.length === 0) return '';
  const targets = [...new Set(b.matrix.map((c) => c.target))];
  const evaluators = [...new Set(b.matrix.map((c) => c.evaluator))];
  const head = targets
    .map((t) => `<th${t === v.chosen?.agent ? ' class="chosen" title="the chosen proposal"' : ''}>${esc(t)}</th>`)
    .join('');
  const rows = evaluators.map((e) => {
    const cells = targets.map((t) => {
      const c = b.matrix.find((x) => x.evaluator === e && x.target === t);
      if (c === undefined) return '<td class="cell none">—</td>';
      const stance = c.stance ?? 'unknown';
      const classes = ['cell', `s-${stance}`, ...(c.synthetic === true ? ['synthetic'] : [])].join(' ');
      const label = `${stance.replace('_', ' ')}${c.synthetic === true ? ', synthetic' : ''}`;
      return `<td class="${esc(classes)}" title="${esc(label)}">${score(c.score)}<br><small>${esc(label)}</small></td>`;
    });
    return `<tr><th scope="row">${esc(e)}</th>${cells.join('')}</tr>`;
  });
  return [
    `<h3>Ballots of round ${b.round}</h3>`,
    `<table class="ballots"><thead><tr><th>Evaluator / proposal</th>${head}</tr></thead>`,
    `<tbody>${rows.join('')}</tbody></table>`,
  ].join('');
}

function countsList(c: VerdictCounts | null): string {
  if (c === null) return 'not reported';
  // "unknown" is a verdict only a nonconforming server gives: shown when it did.
  const shown = VERDICT_ORDER.filter((v) => v !== 'unknown' || (c[v] ?? 0) > 0);
  return `<ul class="counts">${shown.map((v) => `<li class="badge v-${v}">${c[v] ?? 0} ${v}</li>`).join('')}</ul>`;
}

const claimItem = (verdict: string, text: string, reason: string | null | undefined): string =>
  `<li><span class="badge v-${esc(verdict)}">${esc(verdict)}</span> ${esc(text)}${
    reason == null || reason === '' ? '' : ` <span class="reason">— ${esc(reason)}</span>`
  }</li>`;

function gateTable(gate: GateResult | null): string {
  if (gate === null) return '<p>No gates were set for this turn.</p>';
  const rows = gate.checks.map(
    (c) =>
      `<tr><td><code>${esc(c.name)}</code></td><td>${esc(GATE_MEASURE[c.name])}</td><td>${GATE_EXPECT[c.name] ?? ''} ${esc(gateValue(c.name, c.expected))}</td><td>${esc(
        gateValue(c.name, c.actual),
      )}</td><td class="st-${esc(c.status)}">${c.status === 'pass' ? '✓' : '✗'} ${esc(c.status)}</td></tr>`,
  );
  return [
    `<h3>Gates: <span class="st-${esc(gate.status)}">${esc(gate.status)}</span></h3>`,
    '<table class="gates"><thead><tr><th>Check</th><th>Measures</th><th>Expected</th><th>Actual</th><th>Result</th></tr></thead>',
    `<tbody>${rows.join('')}</tbody></table>`,
  ].join('');
}

/** Scored rounds, one per number (the latest kept: a replay after a resume repeats rounds). */
function scoredRounds(t: TurnDocument): NsedRound[] {
  const byNumber = new Map<number, NsedRound>();
  for (const r of t.rounds.filter((x) => x.scored)) {
    byNumber.delete(r.round);
    byNumber.set(r.round, r);
  }
  return [...byNumber.values()].sort((a, b) => a.round - b.round);
}

/** Agents in the order they first appear, so each keeps one colour across both charts and every round. */
function agentsOf(rounds: readonly NsedRound[]): string[] {
  const seen = new Set<string>();
  for (const r of rounds) for (const c of r.candidates) seen.add(c.agent_id);
  return [...seen];
}

function charts(id: string, t: TurnDocument): string {
  const rounds = scoredRounds(t);
  const perRound = t.verdict?.convergence.per_round ?? [];
  if (rounds.length === 0 && perRound.length === 0) return '';
  const chosen = t.verdict?.chosen?.agent;
  const agents = agentsOf(rounds);
  const out: string[] = ['<div class="charts">'];
  if (perRound.length > 0) {
    const series: Series[] = [{ name: 'convergence', points: perRound.map((p) => [p.round, p.value] as const) }];
    out.push(
      `<figure class="convergence"><figcaption>Convergence per round</figcaption>${lineChart(`${id}-conv`, 'Convergence per round', series, axisFor([], 'percent'))}</figure>`,
    );
  } else {
    out.push('<p class="reason">Convergence per round: not reported by the server.</p>');
  }
  if (agents.length > 0) {
    const series: Series[] = agents.map((agent) => ({
      name: agent,
      chosen: agent === chosen,
      points: rounds.flatMap((r) => {
        const c = r.candidates.find((x) => x.agent_id === agent);
        return c === undefined || !Number.isFinite(c.score) ? [] : [[r.round, c.score] as const];
      }),
    }));
    const axis = axisFor(
      series.flatMap((x) => x.points.map((p) => p[1])),
      'score',
    );
    const legend = agents
      .map(
        (a, i) =>
          `<li><span class="sw s${i % PALETTE}${a === chosen ? ' chosen' : ''}"></span>${esc(a)}${a === chosen ? ' <span class="chosen-mark">★ chosen</span>' : ''}</li>`,
      )
      .join('');
    out.push(
      `<figure class="scores"><figcaption>Each agent's score per round</figcaption>${lineChart(`${id}-scores`, "Each agent's score per round", series, axis)}<ul class="legend">${legend}</ul></figure>`,
    );
  }
  out.push('</div>');
  return out.join('\n');
}

function turnArticle(doc: SessionDocument, index: number, t: TurnDocument, featured: boolean): string {
  const n = index + 1;
  const role = t.kind === 'injection' ? 'injection' : t.role;
  const out: string[] = [`<article class="turn ${role}" id="turn-${n}">`];
  const where =
    t.kind === 'injection'
      ? [
          t.injection?.round == null ? '' : `round ${t.injection.round}`,
          t.injection?.sequence == null ? '' : `#${t.injection.sequence}`,
        ]
          .filter((p) => p !== '')
          .join(', ')
      : '';
  const label =
    t.kind === 'injection' ? `Injection${where === '' ? '' : ` (${where})`}` : t.role === 'user' ? 'User' : 'Assistant';
  out.push(`<h3>${n}. ${label} ${statusBadge(t.status)}</h3>`, turnMeta(t));
  for (const a of t.attachments)
    out.push(
      `<p class="reason">File <code>${esc(a.path)}</code>, ${a.size} bytes, sha256 <code>${esc(a.sha256)}</code></p>`,
    );
  if (t.error !== null && t.status !== 'complete') out.push(`<p class="error">${esc(t.error)}</p>`);
  if (t.role === 'assistant' && t.kind === 'message') {
    out.push(t.content.trim() === '' ? '<p>(no answer)</p>' : `<div class="answer">${markdownHtml(t.content)}</div>`);
    const v = t.verdict;
    // An earlier answer keeps its verdict one click away; a turn that reached no round has none to show.
    if (!featured && v !== null && (v.rounds.completed !== null || v.chosen !== null || t.gate !== null))
      out.push('<details class="more"><summary>Verdict</summary>', verdictFacts(v, gateTable(t.gate)), '</details>');
    if (!featured) out.push(charts(`t${index}`, t));
    out.push(toolCalls(t), roundsOf(doc, index, t));
  } else {
    out.push(t.content.trim() === '' ? '<p>(no content)</p>' : `<div class="text">${esc(t.content)}</div>`);
  }
  out.push('</article>');
  return out.join('\n');
}

function toolCalls(t: TurnDocument): string {
  if (t.tool_calls.length === 0) return '';
  const rows = t.tool_calls.map((c) => {
    const status = c.status === undefined ? 'waiting' : c.status;
    const result = c.result === undefined ? '—' : `<pre>${esc(c.result)}</pre>`;
    return `<tr class="tool"><td><code>${esc(c.name)}</code></td><td><pre>${esc(c.arguments)}</pre></td><td>${esc(status)}</td><td class="num">${
      c.exit_code == null ? '—' : String(c.exit_code)
    }</td><td>${result}</td></tr>`;
  });
  return `<h4>Tool calls</h4><table class="tools"><thead><tr><th>Tool</th><th>Arguments</th><th>Status</th><th>Exit</th><th>Result</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The injections of this answer's job, with the round each landed in. */
function injectionsOf(doc: SessionDocument, t: TurnDocument): TurnDocument[] {
  if (t.job_id === null) return [];
  return doc.turns.filter((u) => u.kind === 'injection' && u.job_id === t.job_id);
}

function roundsOf(doc: SessionDocument, index: number, t: TurnDocument): string {
  const rounds = scoredRounds(t);
  if (rounds.length === 0) return '';
  const injections = injectionsOf(doc, t);
  const convergence = new Map((t.verdict?.convergence.per_round ?? []).map((p) => [p.round, p.value]));
  const chosen = t.verdict?.chosen?.agent;
  const last = rounds.at(-1);
  const out: string[] = [`<h4>Rounds (${rounds.length})</h4>`];
  for (const r of rounds) {
    const leader = leaderOf(r.candidates);
    const count = (v: ClaimVerdict): number =>
      r.candidates.reduce((k, c) => k + c.claims.filter((x) => x.verdict === v).length, 0);
    const landed = injections.filter((u) => u.injection?.round === r.round);
    const sub = [
      convergence.has(r.round) ? `convergence ${percent(convergence.get(r.round))}` : '',
      leader === undefined ? '' : `leader ${esc(leader.agent_id)} ${score(leader.score)}`,
      `${r.candidates.length} candidate${r.candidates.length === 1 ? '' : 's'}`,
      // The words of every round count (progress-state.ts roundClaimsText): all candidates' claims.
      count('wrong') > 0 || count('contested') > 0
        ? `all candidates: <span class="v-wrong">${count('wrong')} wrong</span>, <span class="v-contested">${count('contested')} contested</span>`
        : '',
      landed.length > 0
        ? `<span class="v-inject">${landed.length} injection${landed.length === 1 ? '' : 's'}</span>`
        : '',
    ].filter((p) => p !== '');
    out.push(
      `<details class="round" id="turn-${index + 1}-round-${r.round}"${r === last ? ' open' : ''}><summary>Round ${r.round}${
        r.total_rounds > 0 ? `/${r.total_rounds}` : ''
      } <span class="sub">· ${sub.join(' · ')}</span></summary>`,
    );
    for (const u of landed)
      out.push(
        `<p class="injection"><span class="badge">injected${u.injection?.sequence == null ? '' : ` #${u.injection.sequence}`}</span> <span class="text">${esc(u.content)}</span></p>`,
      );
    out.push(candidateTable(r, r === last ? chosen : undefined), '</details>');
  }
  return out.join('\n');
}

function candidateTable(r: NsedRound, chosen: string | undefined): string {
  const ranked = [...r.candidates].sort((a, b) => b.score - a.score);
  const rows = ranked.map((c) => candidateRow(c, c.agent_id === chosen));
  return `<table class="candidates"><thead><tr><th>Agent</th><th>Score</th><th>Claims</th><th>Proposal</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function candidateRow(c: Candidate, chosen: boolean): string {
  const claims =
    c.claims.length === 0
      ? '<span class="reason">none</span>'
      : `<ul class="claims">${c.claims.map((k) => claimItem(k.verdict, k.claim, k.reason)).join('')}</ul>`;
  const text = c.content_preview;
  const teaser = text.replace(/\s+/g, ' ').trim();
  const proposal =
    text.trim() === ''
      ? '<span class="reason">(none)</span>'
      : `<details class="proposal"><summary>${esc(teaser.length > TEASER_CHARS ? `${teaser.slice(0, TEASER_CHARS - 1)}…` : teaser)}</summary><div class="text">${esc(text)}</div>${
          c.thought_preview.trim() === '' ? '' : `<p class="reason text">${esc(c.thought_preview)}</p>`
        }</details>`;
  const s = Number.isFinite(c.score) ? c.score : 0;
  return `<tr class="candidate" data-agent="${esc(c.agent_id)}"><td>${esc(c.agent_id)}${
    chosen ? ' <span class="chosen-mark" title="chosen">★</span>' : ''
  }</td><td class="num">${score(c.score)} <meter min="0" max="1" value="${s}"></meter></td><td>${claims}</td><td>${proposal}</td></tr>`;
}
