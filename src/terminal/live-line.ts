import type { IO } from './io.js';

/** Back to the line's start, and the whole row erased. */
const ERASE = '\r\x1b[2K';

type Write = (...args: unknown[]) => boolean;

/** One status row redrawn in place at the bottom of a terminal (docs/reliability.md "Batches": the live bar). */
export interface LiveLine {
  /** Replaces the row with what `render` makes of the terminal's width now (it may have been resized). */
  draw(render: (columns: number) => string): void;
  /** Takes the row off for good and gives the stream its own write back; safe to call twice. */
  stop(): void;
}

/**
 * Whether a live row can be drawn on stderr: a terminal that is sized (a pty nobody sized reports
 * 0 columns), not dumb, not -q, and with colour allowed: NO_COLOR and --no-color ask for no
 * escape codes at all, so they get the plain lines.
 */
export function canDrawLive(io: IO): boolean {
  // The stream is looked at last: off a terminal, building process.stderr for a pipe loads
  // node:net and node:stream, which a `sessions ls` into a pipe never needs (docs/performance.md).
  if (!io.stderrIsTTY || io.quiet || io.dumb || !io.color) return false;
  const columns = (io.stderr as { columns?: unknown }).columns;
  return typeof columns === 'number' && Number.isFinite(columns) && columns > 0;
}

/**
 * A live row on `stream`. Other parts of the run hold the same stream (the connection's
 * --verbose lines, the store's lock notes), so the row hooks the stream's `write` for as long as
 * it lives, as a spinner does (terminal/redacting-stream.ts keeps such a hook working): every
 * write of theirs first takes the row off, and the next `draw` puts it back below their line,
 * so no line is ever written into the row.
 */
export function liveLine(stream: NodeJS.WritableStream): LiveLine {
  const target = stream as unknown as { write: Write; columns?: number };
  const own = target.write;
  const raw: Write = (...args) => own.apply(stream, args);
  let shown = false;
  let stopped = false;
  const erase = (): void => {
    if (!shown) return;
    shown = false;
    raw(ERASE);
  };
  target.write = (...args) => {
    erase();
    return raw(...args);
  };
  return {
    draw(render) {
      if (stopped) return;
      const columns = typeof target.columns === 'number' && target.columns > 0 ? target.columns : 80;
      raw(`${ERASE}${render(columns)}`);
      shown = true;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      erase();
      target.write = own;
    },
  };
}
