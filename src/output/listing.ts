import { oneLine } from '../terminal/sanitize.js';
import { inertJson } from './export/inert-json.js';
import { toJsonLine } from './ndjson.js';

/** One column of a discovery listing: its header on a terminal, and how wide a cell may grow. */
export interface Column<T> {
  header: string;
  cell(item: T): string;
  /** Cells are cut to this many characters on a terminal (never on a pipe). */
  max?: number;
  align?: 'right';
}

/** How a listing prints: `auto` is a table on a terminal and tab-separated lines on a pipe. */
export type ListingFormat = 'table' | 'tsv' | 'json' | 'ndjson';

export function listingFormat(output: string, stdoutIsTTY: boolean): ListingFormat {
  if (output === 'json') return 'json';
  if (output === 'ndjson') return 'ndjson';
  return stdoutIsTTY ? 'table' : 'tsv';
}

/**
 * Renders the items: an aligned table under a header for a person; for a script, one line per
 * item with the same columns separated by tabs and no header (`cut -f1` gives the ids); or the
 * JSON documents as given. Server text is made one safe line on every text path.
 */
export function renderListing<T>(
  items: readonly T[],
  columns: ReadonlyArray<Column<T>>,
  format: ListingFormat,
  json: (item: T) => unknown,
): string {
  switch (format) {
    case 'json':
      return inertJson(items.map(json));
    case 'ndjson':
      return items.map((i) => toJsonLine(json(i))).join('');
    case 'tsv':
      return items.map((i) => `${columns.map((c) => oneLine(c.cell(i), 10_000)).join('\t')}\n`).join('');
    case 'table':
      return table(items, columns);
  }
}

function table<T>(items: readonly T[], columns: ReadonlyArray<Column<T>>): string {
  const rows = items.map((i) => columns.map((c) => oneLine(c.cell(i), c.max ?? 60)));
  const widths = columns.map((c, k) => Math.max(c.header.length, ...rows.map((r) => [...(r[k] ?? '')].length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, k) => {
        const w = widths[k] ?? 0;
        const pad = ' '.repeat(Math.max(0, w - [...cell].length));
        if (columns[k]?.align === 'right') return pad + cell;
        return k === cells.length - 1 ? cell : cell + pad;
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...rows.map(line)].map((l) => `${l}\n`).join('');
}
