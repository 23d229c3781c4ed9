import type { Candidate, NsedRound } from '../protocol/wire.js';
import type { Attachment, RecordedToolCall } from '../session/index.js';
import { oneLine, sanitizeForTerminal } from '../terminal/sanitize.js';
import type { SessionDocument, TurnDocument } from './export/json.js';
import { plainPaint, roundPicture, type Paint } from './round-picture.js';
import { relativeTime, shortTime } from './session-time.js';
import { totalWords, usageWords } from './usage-words.js';
import { gateSummary, verdictSummary } from './verdict-line.js';
import type { CouncilVerdict } from '../council/verdict.js';

export interface ShowOptions {
  /** --rounds: the recorded rounds, candidates, scores and claim verdicts under each answer. */
  rounds: boolean;
  /** --ballots: who voted how on each chosen proposal, stand-ins marked, and the trust figures. */
  ballots?: boolean;
  /** stdout is a terminal: server text is sanitised and times are relative. */
  terminal: boolean;
  now: Date;
  /** Colours for a terminal (verdicts, the leader); plain when absent. */
  paint?: Paint;
}

/**
 * `sessions show`: a header, then every turn under a line naming its position, role, policy,
 * job and time. Injections and turns that did not complete are marked on that line. Piped,
 * the contents are written as recorded; on a terminal, anything that could act on it is
 * removed first (docs/reliability.md #78).
 */
export function renderTranscript(doc: SessionDocument, opts: ShowOptions): string {
  const when = (iso: string): string => (opts.terminal ? relativeTime(iso, opts.now) : iso);
  const out: string[] = [oneLine(doc.title, 200) || doc.id];
  const count = doc.turns.length === 1 ? '1 turn' : `${doc.turns.length} turns`;
  out.push(
    `session ${doc.id} · ${doc.policy === null ? `agents ${oneLine((doc.council?.agents ?? []).join(', '), 80)}` : `policy ${oneLine(doc.policy, 80)}`} · ${count} · created ${when(doc.created)} · updated ${when(doc.updated)} · ${doc.state}`,
  );
  if (doc.forked_from !== null) {
    const at = doc.forked_from.turn === null ? '' : ` at turn ${oneLine(doc.forked_from.turn, 40)}`;
    out.push(`forked from ${oneLine(doc.forked_from.session, 80)}${at}`);
  }
  if (doc.batch !== null) out.push(`batch ${oneLine(doc.batch.id, 80)} · item ${oneLine(doc.batch.item, 120)}`);
  if (doc.idempotency !== null) out.push(`idempotency key ${oneLine(doc.idempotency.key, 200)}`);
  if (doc.pending_job !== null) {
    out.push(
      `running: deliberation ${oneLine(String(doc.pending_job.job_id), 80)} (follow it with 'nsed resume -s ${doc.id}')`,
    );
  }
  // What the answers cost together: unknown ones are counted apart, never as $0 (docs/ndjson.md §4d).
  if (doc.usage.turns > 0) out.push(totalWords(doc.usage));
  if (doc.system !== null && doc.system !== '') out.push(`system: ${oneLine(doc.system, 200)}`);
  doc.turns.forEach((t, i) => {
    out.push('', `── ${heading(t, i + 1)}`);
    if (opts.rounds && t.rounds.length > 0) {
      const paint = opts.paint ?? plainPaint;
      // On a terminal the rounds come first as a picture: who led, and whether the council agreed.
      if (opts.terminal) out.push(...roundPicture(t.rounds, t.reasoning, paint), '');
      out.push(...t.rounds.flatMap((r) => roundLines(r, paint)), '');
    }
    if (t.tool_calls.length > 0) out.push(...t.tool_calls.map(toolCallLine), '');
    if (t.attachments.length > 0) out.push(...t.attachments.map(attachmentLine), '');
    const text = opts.terminal ? sanitizeForTerminal(t.content) : t.content;
    if (text !== '') out.push(text.replace(/\n+$/, ''));
    if (t.status !== 'complete' && t.error !== null) out.push(`[${t.status}: ${oneLine(t.error, 300)}]`);
    if (t.diverged) out.push(DIVERGED_NOTE);
    // Under the answer, what the council concluded and how the run's gates judged it.
    if (t.verdict !== null && (t.verdict.rounds.completed !== null || t.verdict.chosen !== null))
      out.push('', `  ${verdictSummary(t.verdict)}`);
    if (t.gate !== null) out.push(`  ${gateSummary(t.gate)}`);
    if (t.role === 'assistant' && t.kind === 'message')
      out.push(`  ${t.usage === null ? 'cost not recorded' : usageWords(t.usage)}`);
    if (opts.ballots === true && t.verdict !== null) out.push(...ballotLines(t.verdict));
  });
  return `${out.join('\n')}\n`;
}

const DIVERGED_NOTE =
  "[the replay after a reconnect differed from what was shown live; this is the orchestrator's recorded answer when it gave one]";

function heading(t: TurnDocument, position: number): string {
  const parts = [String(position)];
  if (t.kind === 'injection') {
    const round = t.injection?.round == null ? '' : ` at round ${t.injection.round}`;
    const seq = t.injection?.sequence == null ? '' : ` (#${t.injection.sequence})`;
    parts.push(`injection${round}${seq}`);
  } else {
    parts.push(t.role);
  }
  if (t.policy !== null) parts.push(oneLine(t.policy, 80));
  if (t.agents !== null) parts.push(`agents ${oneLine(t.agents.join(', '), 80)}`);
  if (t.job_id !== null) parts.push(`job ${oneLine(t.job_id, 80)}`);
  if (t.ts !== '') parts.push(shortTime(t.ts));
  if (t.status !== 'complete') parts.push(t.status.toUpperCase());
  if (t.diverged) parts.push('REPLAY DIFFERED');
  return parts.join(' · ');
}

/** `  file src/app.ts (1234 bytes, sha256 0123456789ab)`: what was attached, not its text again. */
export function attachmentLine(a: Attachment): string {
  return `  file ${oneLine(a.path, 200)} (${a.size} bytes, sha256 ${oneLine(a.sha256, 64).slice(0, 12)})`;
}

/** `  tool calculator {"expr":"2+2"} → 4 (ok, exit 0, 12 ms)`, or `… → waiting` for an open call. */
export function toolCallLine(c: RecordedToolCall): string {
  const head = `  tool ${oneLine(c.name, 60)} ${oneLine(c.arguments, 80)}`;
  if (c.status === undefined) return `${head} → waiting for a result (${oneLine(c.id, 60)})`;
  const how = [
    c.status,
    ...(c.exit_code == null ? [] : [`exit ${c.exit_code}`]),
    ...(c.duration_ms == null ? [] : [`${Math.round(c.duration_ms)} ms`]),
  ];
  const result = c.status === 'expired' ? 'no answer' : oneLine(c.result ?? '', 100);
  return `${head} → ${result} (${how.join(', ')})`;
}

function roundLines(r: NsedRound, paint: Paint): string[] {
  const ranked = [...r.candidates].sort((a, b) => b.score - a.score);
  const n = ranked.length;
  const lines = [`  round ${r.round}/${r.total_rounds} · ${n} candidate${n === 1 ? '' : 's'}`];
  for (const c of ranked) lines.push(...candidateLines(c, paint));
  return lines;
}

function candidateLines(c: Candidate, paint: Paint): string[] {
  const score = Number.isFinite(c.score) ? c.score.toFixed(2) : '?';
  const lines = [`    ${oneLine(c.agent_id, 40)} ${score}  ${oneLine(c.content_preview, 100)}`];
  for (const claim of c.claims) {
    const reason = claim.reason === undefined || claim.reason === '' ? '' : ` (${oneLine(claim.reason, 80)})`;
    lines.push(`      ${paint.verdict(claim.verdict, claim.verdict.padEnd(10))} ${oneLine(claim.claim, 100)}${reason}`);
  }
  return lines;
}

/**
 * `--ballots`: a line per evaluator of the chosen proposal (`CortexB  disagree  -0.20  1 wrong,
 * 2 verified  — position`), a stand-in marked `synthetic`, then the trust figures.
 */
function ballotLines(v: CouncilVerdict): string[] {
  const b = v.ballots;
  if (b === null) return ['  ballots: not reported by the server'];
  const width = Math.min(24, Math.max(...b.chosen.map((x) => oneLine(x.evaluator, 24).length), 9));
  const lines = [`  ballots of round ${b.round} on ${oneLine(v.chosen?.agent ?? 'the chosen proposal', 40)}:`];
  for (const x of b.chosen) {
    const counts = new Map<string, number>();
    for (const c of x.claims) counts.set(c.verdict, (counts.get(c.verdict) ?? 0) + 1);
    const claims = [...counts].map(([verdict, n]) => `${n} ${verdict}`).join(', ');
    const why = x.disagreements[0]?.position ?? x.reason;
    lines.push(
      [
        `    ${oneLine(x.evaluator, 24).padEnd(width)}`,
        (x.stance ?? 'stance not reported').replace('_', ' ').padEnd(15),
        (x.score === null ? '—' : x.score.toFixed(2)).padStart(5),
        x.synthetic === true ? 'synthetic' : '',
        claims,
        why == null || why === '' ? '' : `— ${oneLine(why, 100)}`,
      ]
        .filter((p) => p !== '')
        .join('  '),
    );
  }
  const t = v.trust;
  const endorse = t.endorse === null ? 'not reported' : `${t.endorse.count} of ${t.endorse.of} real evaluators`;
  const kappa = t.agreement === null ? 'not reported' : t.agreement.toFixed(2);
  const pct = (n: number | null): string => (n === null ? 'not reported' : `${Math.round(n * 100)}%`);
  lines.push(
    `  endorsed by ${endorse} · agreement (kappa) ${kappa} · synthetic ${pct(t.synthetic_share.final)} of the final round`,
  );
  if (t.diversity !== null && t.diversity.families.length === 1)
    lines.push(
      `  warning: every agent of the council is of one model family (${oneLine(t.diversity.families[0] ?? '', 40)})`,
    );
  return lines;
}
