import type { SessionSummary } from '../session/index.js';
import { oneLine } from '../terminal/sanitize.js';
import { inertJson } from './export/inert-json.js';
import { toJsonLine } from './ndjson.js';
import { relativeTime } from './session-time.js';

/** One session as `sessions ls --json` documents it: every key always present. */
export type SessionListItem = Required<Omit<SessionSummary, 'forked_from' | 'agents' | 'batch'>> & {
  forked_from: NonNullable<SessionSummary['forked_from']> | null;
  agents: string[] | null;
  batch: string | null;
};

/** The POLICY column: the policy, or the agents --agents chose the council with. */
const policyCell = (s: SessionSummary): string => s.policy ?? `agents ${(s.agents ?? []).join(',')}`;

export function listItem(s: SessionSummary): SessionListItem {
  return {
    id: s.id,
    title: s.title,
    policy: s.policy,
    agents: s.agents ?? null,
    turns: s.turns,
    created: s.created,
    updated: s.updated,
    state: s.state,
    forked_from:
      s.forked_from === undefined ? null : { session: s.forked_from.session, turn: s.forked_from.turn ?? null },
    batch: s.batch ?? null,
    usage: s.usage,
  };
}

const TITLE_WIDTH = 48;
/** A title cut shorter than this says nothing; columns are dropped instead. */
const MIN_TITLE = 10;
const HEADER = ['ID', 'TITLE', 'POLICY', 'TURNS', 'UPDATED', 'STATE'];
const TITLE = 1;
/** What a narrow terminal drops first when a title at MIN_TITLE still does not fit: POLICY, TURNS, UPDATED. */
const DROP_ORDER = [2, 3, 4];
const GAP = '  ';

/**
 * A terminal: aligned columns under a header, titles cut to fit, times relative to `now`. Given
 * the terminal's `width`, every session stays one row, as gh's tables do: the title is cut to
 * what the other columns leave, then the least useful columns are dropped; the id and the state
 * always stay, and only a terminal too narrow even for those gets rows cut with `…`.
 */
export function sessionTable(items: readonly SessionSummary[], now: Date, width?: number): string {
  const cells = items.map((s) => [
    oneLine(s.id, 80),
    oneLine(s.title, TITLE_WIDTH),
    oneLine(policyCell(s), 40),
    String(s.turns),
    relativeTime(s.updated, now),
    s.state,
  ]);
  const widthOf = (rows: readonly string[][]): number[] =>
    HEADER.map((h, c) => Math.max(h.length, ...rows.map((r) => [...(r[c] ?? '')].length)));
  const natural = widthOf(cells);
  const room = width !== undefined && Number.isFinite(width) && width > 0 ? Math.floor(width) : Infinity;
  const titleNeeds = Math.min(MIN_TITLE, natural[TITLE] ?? 0);
  let shown = HEADER.map((_, c) => c);
  let left = Infinity;
  for (const drop of [undefined, ...DROP_ORDER]) {
    if (drop !== undefined) shown = shown.filter((c) => c !== drop);
    const others = shown.reduce((sum, c) => (c === TITLE ? sum : sum + (natural[c] ?? 0)), 0);
    left = room - others - GAP.length * (shown.length - 1);
    if (left >= titleNeeds) break;
  }
  // Below MIN_TITLE only when nothing else is left to drop: a short title beats a cut state.
  const titleWidth = Math.max(HEADER[TITLE]?.length ?? 0, Math.min(natural[TITLE] ?? 0, left));
  const rows = cells.map((r) =>
    titleWidth < (natural[TITLE] ?? 0) ? r.with(TITLE, oneLine(r[TITLE] ?? '', titleWidth)) : r,
  );
  const widths = widthOf(rows);
  const line = (row: readonly string[]): string => {
    const text = shown
      .map((c, k) => {
        const cell = row[c] ?? '';
        const w = widths[c] ?? 0;
        if (c === 3) return cell.padStart(w);
        return k === shown.length - 1 ? cell : padEnd(cell, w);
      })
      .join(GAP);
    // A terminal too narrow even for the id and the state: the row is cut, never wrapped.
    const chars = [...text];
    return chars.length <= room ? text : `${chars.slice(0, Math.max(0, room - 1)).join('')}…`;
  };
  return [HEADER, ...rows].map((r) => `${line(r)}\n`).join('');
}

/** A pipe: one tab-separated line per session, the same columns, `updated` as ISO; no header. */
export function sessionLines(items: readonly SessionSummary[]): string {
  // oneLine turns tabs and newlines inside a title into spaces, so a line stays six fields.
  let text = '';
  for (const s of items)
    text += `${s.id}\t${oneLine(s.title, 10_000)}\t${oneLine(policyCell(s), 10_000)}\t${s.turns}\t${s.updated}\t${s.state}\n`;
  return text;
}

export function sessionJson(items: readonly SessionListItem[]): string {
  return inertJson(items);
}

export function sessionNdjson(items: readonly SessionListItem[]): string {
  return items.map((s) => toJsonLine(s)).join('');
}

/** Pads by code points, so an accented title does not push the next column. */
function padEnd(text: string, width: number): string {
  const n = [...text].length;
  return n >= width ? text : text + ' '.repeat(width - n);
}
