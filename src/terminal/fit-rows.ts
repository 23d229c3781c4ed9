import type { IO } from './io.js';

/**
 * Columns a live status row leaves free at its right end. A terminal echoes Ctrl-C as `^C` where
 * the cursor is, two columns: on a row that reached closer to the edge the echo wraps, the cursor
 * lands on a new row, and the row's erase clears that one, leaving the status row frozen on the
 * screen above the error (docs/reliability.md #165).
 */
export const ECHO_COLUMNS = 2;

/** The widest a live status row may be on a terminal of `columns`. */
export const liveRowRoom = (columns: number): number => Math.floor(columns) - ECHO_COLUMNS;

/** The widest a printed line's row may be: the last column is left free, as some terminals wrap on it. */
export const printedRowRoom = (columns: number): number => Math.floor(columns) - 1;

/** How progress lines separate their parts; the one place a line is broken between rows. */
const SEPARATOR = ' · ';
/** A row that continues a line starts with this, so a reader sees it belongs to the row above. */
const INDENT = '  ';

type Width = (text: string) => number;

/**
 * `text` cut to `max` terminal columns, with `…` where it was cut. Measured by display width,
 * grapheme by grapheme: a CJK character takes two columns, an emoji sequence is never split.
 */
export function fitColumns(text: string, max: number, width: Width): string {
  if (width(text) <= max) return text;
  let out = '';
  let used = 0;
  for (const { segment } of new Intl.Segmenter().segment(text)) {
    const w = width(segment);
    if (used + w > max - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/**
 * A progress line laid out in rows of at most `room` columns, never split inside a word. A line
 * that fits is one row. Else it is broken between its ` · ` parts, each row after the first
 * indented; a part wider than a row is broken between its words. A later part holding a word
 * that no row can show whole (a long job id at 40 columns) is detail, and is dropped; the first
 * part names the line, so such a word of its own is cut short with `…` instead.
 */
export function fitRows(line: string, room: number, width: Width): string[] {
  if (room <= INDENT.length || width(line) <= room) return [line];
  const rows: string[] = [];
  let row = '';
  const lead = (): string => (rows.length === 0 ? '' : INDENT);
  const flush = (): void => {
    if (row !== '') rows.push(row);
    row = '';
  };
  const wordRoom = room - INDENT.length;
  line.split(SEPARATOR).forEach((part, i) => {
    if (row !== '' && width(`${row}${SEPARATOR}${part}`) <= room) {
      row = `${row}${SEPARATOR}${part}`;
      return;
    }
    const words = part.split(' ');
    if (i > 0 && words.some((w) => width(w) > wordRoom)) return;
    flush();
    if (width(`${lead()}${part}`) <= room) {
      row = `${lead()}${part}`;
      return;
    }
    for (const word of words) {
      const shown = fitColumns(word, wordRoom, width);
      if (row !== '' && width(`${row} ${shown}`) <= room) row = `${row} ${shown}`;
      else {
        flush();
        row = `${lead()}${shown}`;
      }
    }
  });
  flush();
  return rows;
}

/** Lays a printed line out for a stream: its rows on a sized terminal, else the line as it is. */
export type RowFitter = (line: string) => string[];

/** One row per line, for a stream that is not a terminal (a log, a pipe) or has no known width. */
export const asIs: RowFitter = (line) => [line];

/**
 * The fitter for stderr: on a terminal that reports its width, each line laid out to the width it
 * has now (it may have been resized), measured as the terminal will draw it; elsewhere lines stay
 * whole, so a log or a pipe gets exactly the lines it always got. string-width is loaded only here.
 */
export async function stderrRows(io: IO): Promise<RowFitter> {
  if (!io.stderrIsTTY || columnsOf(io.stderr) === undefined) return asIs;
  const { default: stringWidth } = await import('string-width');
  return (line) => {
    const columns = columnsOf(io.stderr);
    return columns === undefined ? [line] : fitRows(line, printedRowRoom(columns), stringWidth);
  };
}

/** A stream's width when it is a sized terminal (a pty nobody sized reports 0). */
function columnsOf(stream: NodeJS.WritableStream): number | undefined {
  const columns = (stream as { columns?: unknown }).columns;
  return typeof columns === 'number' && Number.isFinite(columns) && columns > 0 ? columns : undefined;
}
