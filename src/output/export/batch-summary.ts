import { shortDuration } from '../batch-bar.js';
import {
  batchUsage,
  countsOf,
  statusOfEntry,
  worstFirst,
  type BatchEntry,
  type BatchReport,
  type EntryStatus,
} from './batch-report.js';
import { cell, code, codeCell, fitLines, inline, percent, score, table } from './markdown-cells.js';
import { gateMark, SUMMARY_LIMIT_BYTES } from './summary.js';
import { dollars } from '../../council/usage.js';
import { totalWords } from '../usage-words.js';

/** The item table's share of GitHub's limit, and the problems list's; the rest is the fixed parts. */
const BUDGET = { items: 800 * 1024, problems: 192 * 1024 };

const MARK: Record<EntryStatus, string> = {
  ok: '✓ ok',
  gate_failed: '✗ gate_failed',
  inconclusive: '✗ inconclusive',
  failed: '✗ failed',
  error: '✗ error',
  cancelled: '⊘ cancelled',
  skipped: '– skipped',
  interrupted: '⊘ interrupted',
  'not-run': '– not run',
};

const WORDS: Record<EntryStatus, string> = {
  ok: 'ok',
  gate_failed: 'gate_failed',
  inconclusive: 'inconclusive',
  failed: 'failed',
  error: 'error',
  cancelled: 'cancelled',
  skipped: 'skipped',
  interrupted: 'interrupted',
  'not-run': 'not run',
};

/**
 * `nsed batch --summary FILE`: the batch as GitHub-flavoured markdown for `$GITHUB_STEP_SUMMARY`
 * (docs/reliability.md "Batches"): the outcome and the counts per status, then a table with one row per item
 * (status, convergence, chosen agent, gate, time, cost, session), worst first, then why each item
 * that went wrong did. Items interrupted by a signal or never started have their rows too. Each
 * part has a byte budget and says when it was cut, so the whole stays under GitHub's 1 MiB.
 */
export function batchSummaryMarkdown(r: BatchReport): string {
  const out: string[] = [`## nsed batch · ${outcome(r)}`, '', meta(r), ''];
  const counts = countsOf(r.entries)
    .map(([s, n]) => `${n} ${WORDS[s]}`)
    .join(' · ');
  out.push(`**${r.entries.length} item${r.entries.length === 1 ? '' : 's'}:** ${counts === '' ? 'none' : counts}`, '');
  // What the items cost together, as the batch's summary line sums it: unknown ones apart, never $0.
  const spent = batchUsage(r);
  if (spent.turns > 0) out.push(`**Cost:** ${totalWords(spent)}`, '');
  out.push('### Items', '', ...itemLines(r), '');
  const problems = problemLines(r);
  if (problems.length > 0) out.push('### Problems', '', ...problems, '');
  out.push(pointer(r));
  return `${out.join('\n')}\n`;
}

function outcome(r: BatchReport): string {
  const finished = r.entries.filter((e) => typeof e.ended !== 'string');
  const ok = finished.filter((e) => statusOfEntry(e) === 'ok').length;
  if (finished.length < r.entries.length) return `✗ ${finished.length} of ${r.entries.length} items finished, ${ok} ok`;
  if (ok === r.entries.length) return `✓ ${r.entries.length === 1 ? 'the item' : `all ${ok} items`} ok`;
  return `✗ ${r.entries.length - ok} of ${r.entries.length} items not ok`;
}

function meta(r: BatchReport): string {
  if (r.merged !== undefined)
    return [
      `batch ${code(r.batch)}`,
      `merged ${r.merged.shards} of ${r.merged.count} shards`,
      `at ${inline(r.started, 40)}`,
    ].join(' · ');
  return [`batch ${code(r.batch)}`, `started ${inline(r.started, 40)}`, `${shortDuration(r.wallMs)} wall`].join(' · ');
}

function gateCell(e: BatchEntry): string {
  if (typeof e.ended === 'string' || e.ended.gate === null) return '—';
  const g = e.ended.gate;
  const bad = g.checks.filter((c) => c.status !== 'pass').map((c) => c.name);
  return bad.length === 0 ? gateMark(g.status) : `${gateMark(g.status)}: ${cell(bad.join(', '), 200)}`;
}

function itemLines(r: BatchReport): string[] {
  const rows = worstFirst(r.entries).map((e) => {
    const line = typeof e.ended === 'string' ? undefined : e.ended;
    const v = line?.verdict ?? null;
    const chosen = v?.chosen == null ? '—' : `${cell(v.chosen.agent, 60)} ${score(v.chosen.score)}`;
    return [
      codeCell(e.id, 120),
      MARK[statusOfEntry(e)],
      v === null ? '—' : percent(v.convergence.final),
      chosen,
      gateCell(e),
      e.ms === null ? '—' : shortDuration(e.ms),
      line?.usage == null ? '—' : line.usage.cost_usd === null ? 'unknown' : dollars(line.usage),
      line?.session == null ? (line === undefined || r.saved ? '—' : 'not saved') : codeCell(line.session, 80),
    ];
  });
  if (rows.length === 0) return ['_The batch had no items._'];
  const lines = table(['Item', 'Status', 'Convergence', 'Chosen', 'Gate', 'Time', 'Cost', 'Session'], rows);
  const { kept, dropped } = fitLines(lines, BUDGET.items);
  if (dropped === 0) return kept;
  return [...kept, '', truncated(`the item table (${dropped} of ${rows.length} items left out, the best last)`)];
}

function problemLines(r: BatchReport): string[] {
  const lines = worstFirst(r.entries).flatMap((e) => {
    if (e.ended === 'interrupted') return [`- ${code(e.id)}: interrupted by a signal while it ran; no result line`];
    if (typeof e.ended === 'string' || e.ended.error === null) return [];
    const err = e.ended.error;
    return [`- ${code(e.id)} (${e.ended.status}, exit ${err.exit_code}): ${inline(err.message, 1000)}`];
  });
  const { kept, dropped } = fitLines(lines, BUDGET.problems);
  return dropped === 0 ? kept : [...kept, '', truncated(`the problems (${dropped} left out)`)];
}

function truncated(what: string): string {
  return `> **Truncated:** ${what}, to stay under GitHub's ${SUMMARY_LIMIT_BYTES / 1024 / 1024} MiB summary limit; every finished item is a line of the batch's results.`;
}

function pointer(r: BatchReport): string {
  if (!r.saved) return "_The items were not saved (--no-save): the batch's result lines hold their answers._";
  return `_Each item's own report: ${code('nsed sessions export SESSION --format summary', 200)}._`;
}
