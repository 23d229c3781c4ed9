import { fitColumns, liveRowRoom } from './fit-rows.js';
import type { IO } from './io.js';

export interface Spinner {
  /** Begins drawing; does nothing if it is drawing already or was stopped. */
  start(): void;
  update(text: string): void;
  /** Takes the spinner off the line, runs `write` (which prints whole lines), then draws it again. */
  clearWhile(write: () => void): void;
  /** Removes the spinner for good; safe to call more than once. */
  stop(): void;
  readonly spinning: boolean;
}

/** The cursor methods ora drives; a tty.WriteStream has them, a plain pipe does not. */
interface CursorStream {
  cursorTo(x: number): boolean;
  clearLine(dir: -1 | 0 | 1): boolean;
  moveCursor(dx: number, dy: number): boolean;
}

/**
 * A terminal that reports 0 columns (a pty nobody sized: `script` without a real terminal, many
 * CI runners) or calls itself dumb cannot be drawn on: ora divides by the width and clears lines
 * without end. Progress there is plain lines instead.
 */
function canDrawOn(stream: NodeJS.WritableStream): boolean {
  const s = stream as Partial<CursorStream> & { columns?: unknown };
  const sized = typeof s.columns === 'number' && Number.isFinite(s.columns) && s.columns > 0;
  return (
    sized && typeof s.cursorTo === 'function' && typeof s.clearLine === 'function' && typeof s.moveCursor === 'function'
  );
}

/** Whether a spinner can be drawn on this stderr (a sized, capable terminal, -q off). */
export function canAnimate(io: IO): boolean {
  return io.stderrIsTTY && !io.quiet && !io.dumb && canDrawOn(io.stderr);
}

const inert: Spinner = {
  start: () => undefined,
  update: () => undefined,
  clearWhile: (write) => write(),
  stop: () => undefined,
  spinning: false,
};

/**
 * A spinner on stderr, only when stderr is a terminal and -q is off (docs/reliability.md #70). ora is imported
 * here, lazily, because it costs about 79 ms at start-up and most paths never show one.
 */
export async function startSpinner(io: IO, text: string): Promise<Spinner> {
  const spinner = await createSpinner(io, text);
  spinner.start();
  return spinner;
}

/**
 * The same spinner, loaded but not yet drawing. A drawing spinner holds a timer that keeps the
 * process alive until stop(), so callers that may never get to their first event start it late.
 */
export async function createSpinner(io: IO, text: string): Promise<Spinner> {
  if (!canAnimate(io)) return inert;
  // string-width is ora's own measure (it counts the rows a frame takes with it), loaded with it.
  const [{ default: ora }, { default: stringWidth }] = await Promise.all([import('ora'), import('string-width')]);
  const spinner = ora({
    text,
    stream: io.stderr,
    isEnabled: true,
    color: io.color ? 'cyan' : false,
    // Both would reach into process-wide state: raw mode on stdin (swallowing Ctrl-C as a key)
    // and signal-exit handlers that restore the cursor, which would race main's own signal handling.
    discardStdin: false,
    hideCursor: false,
  });
  let state: 'ready' | 'spinning' | 'stopped' = 'ready';
  return {
    start() {
      if (state !== 'ready') return;
      state = 'spinning';
      spinner.start();
    },
    update(next) {
      // One row only: a status line that wraps would leave its first half behind on every redraw.
      // The frame and its space take 2 columns, and the row leaves room for a Ctrl-C's echo
      // (docs/reliability.md #165).
      const columns = (io.stderr as { columns?: number }).columns ?? 80;
      if (state !== 'stopped') spinner.text = fitColumns(next, liveRowRoom(columns) - 2, stringWidth);
    },
    clearWhile(write) {
      if (state !== 'spinning') {
        write();
        return;
      }
      spinner.clear();
      write();
      spinner.render();
    },
    stop() {
      if (state === 'spinning') spinner.stop();
      state = 'stopped';
    },
    get spinning() {
      return state === 'spinning';
    },
  };
}
