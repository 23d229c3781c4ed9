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
  };
}

const TITLE_WIDTH = 48;
const HEADER = ['ID', 'TITLE', 'POLICY', 'TURNS', 'UPDATED', 'STATE'];

/** A terminal: aligned columns under a header, titles cut to fit, times relative to `now`. */
export function sessionTable(items: readonly SessionSummary[], now: Date): string {
  const rows = items.map((s) => [
    oneLine(s.id, 80),
    oneLine(s.title, TITLE_WIDTH),
    oneLine(policyCell(s), 40),
    String(s.turns),
    relativeTime(s.updated, now),
    s.state,
  ]);
  const widths = HEADER.map((h, c) => Math.max(h.length, ...rows.map((r) => [...(r[c] ?? '')].length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, c) =>
        c === 3 ? cell.padStart(widths[c] ?? 0) : c === cells.length - 1 ? cell : padEnd(cell, widths[c] ?? 0),
      )
      .join('  ');
  return [line(HEADER), ...rows.map(line)].map((l) => `${l}\n`).join('');
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
