import type { StatsGroup, StatsRow } from '../session/index.js';
import { oneLine } from '../terminal/sanitize.js';
import { money } from '../council/usage.js';

const HEADER = ['', 'SESSIONS', 'ANSWERS', 'TOKENS', 'COST', 'GATES P/F/I', 'CONVERGENCE', 'LEADER CHANGED'];

const count = (n: number | null): string => (n === null ? '-' : String(n));
const percent = (share: number | null): string => (share === null ? '-' : `${Math.round(share * 100)}%`);

function keyCell(row: StatsRow, by: StatsGroup | undefined): string {
  if (by === undefined) return 'all';
  if (row.key !== null) return oneLine(row.key, 40);
  return by === 'policy' ? '(agents)' : by === 'batch' ? '(no batch)' : '-';
}

/** The cost cell: the known dollars, and how many answers' cost is unknown beside them (never as $0). */
function costCell(row: StatsRow): string {
  const known = row.cost_usd === null ? '' : money(row.cost_usd);
  const unknown = row.unknown_cost_answers === 0 ? '' : `${row.unknown_cost_answers} unknown`;
  return [known, unknown].filter((s) => s !== '').join(' + ') || '-';
}

/** `sessions stats` as a table of aligned columns, one row per group. */
export function statsText(rows: readonly StatsRow[], by: StatsGroup | undefined): string {
  const cells = rows.map((r) => [
    keyCell(r, by),
    String(r.sessions),
    String(r.answers),
    r.input_tokens === null && r.output_tokens === null ? '-' : `${count(r.input_tokens)}/${count(r.output_tokens)}`,
    costCell(r),
    `${r.gates.pass}/${r.gates.fail}/${r.gates.inconclusive}`,
    r.convergence.mean === null ? '-' : r.convergence.mean.toFixed(2),
    r.leader_changed.share === null ? '-' : `${percent(r.leader_changed.share)} of ${r.leader_changed.sessions}`,
  ]);
  const header = [by === undefined ? '' : by.toUpperCase(), ...HEADER.slice(1)];
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((r) => (r[c] ?? '').length)));
  const line = (r: readonly string[]): string =>
    `${r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()}\n`;
  return [header, ...cells].map(line).join('');
}
