import type { Clock, Context } from '../run/context.js';
import { batchBar, type BatchBarState } from '../output/batch-bar.js';
import { progressMode } from '../output/progress-mode.js';
import { canDrawLive, liveLine, type LiveLine } from '../terminal/live-line.js';
import { oneLine } from '../terminal/sanitize.js';
import type { ResolvedItem } from './resolve.js';
import type { ResultLine } from './run-item.js';

/** The bar is redrawn at most this often (10 a second), whatever the items do. */
export const REDRAW_MS = 100;
/** Redrawn at least this often, so the elapsed time and the ETA move while nothing ends. */
const REFRESH_MS = 1000;

/**
 * What a batch tells about its items as they go (docs/reliability.md "Batches"): on stderr, a live bar on a
 * terminal or a plain line per finished item elsewhere; and, for the reports, how long each
 * item took and which ones a signal interrupted (they get no result line).
 */
export interface BatchProgress {
  started(item: ResolvedItem): void;
  finished(line: ResultLine, ms: number): void;
  /** A signal ended the item before it finished: no line; --resume reattaches it. */
  interrupted(item: ResolvedItem): void;
  /** Takes the bar off the terminal, before the summary line; safe to call twice. */
  stop(): void;
  readonly durations: ReadonlyMap<string, number>;
  readonly interruptedIds: ReadonlySet<string>;
}

export interface BatchProgressOptions {
  /** The back-off shared by every item now (after a 429/503 with Retry-After), shown while above 0. */
  backoffMs?: () => number;
  /**
   * The deliberations running now, what -j bounds (src/run/deliberation-slots.ts): an item waiting for
   * a place, or ending after its deliberation ended, is not one of them.
   */
  running: () => number;
}

/**
 * The batch's progress by `--progress`: `none` shows nothing per item, `plain` a line per
 * finished item, and `auto` the live bar where one can be drawn (canDrawLive), else the lines.
 */
export function batchProgress(ctx: Context, total: number, opts: BatchProgressOptions): BatchProgress {
  const mode = progressMode(ctx.globals.settings.progress.value, ctx.env, ctx.io.stderrIsTTY);
  const durations = new Map<string, number>();
  const interruptedIds = new Set<string>();
  let done = 0;
  let notOk = 0;
  const started = ctx.clock.now().getTime();
  const state = (): BatchBarState => ({
    total,
    done,
    running: opts.running(),
    notOk,
    elapsedMs: ctx.clock.now().getTime() - started,
    backoffMs: opts.backoffMs?.() ?? 0,
  });
  const bar = mode === 'live' && canDrawLive(ctx.io) ? liveBar(liveLine(ctx.io.stderr), ctx.clock, state) : undefined;
  const plain = mode !== 'none' && bar === undefined && !ctx.io.quiet;
  return {
    durations,
    interruptedIds,
    started() {
      bar?.changed();
    },
    finished(line, ms) {
      done++;
      if (line.status !== 'ok') notOk++;
      durations.set(line.id, ms);
      bar?.changed();
      if (plain) ctx.io.stderr.write(plainLine(line, done, total, ms));
    },
    interrupted(item) {
      interruptedIds.add(item.id);
      bar?.changed();
    },
    stop: () => bar?.stop(),
  };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/** Off a terminal: `[3/10] id ok 1.2s`, and why when the item did not end ok. */
function plainLine(line: ResultLine, done: number, total: number, ms: number): string {
  const why = line.error === null ? '' : `: ${oneLine(line.error.message, 160)}`;
  return `[${done}/${total}] ${line.id} ${line.status} ${seconds(ms)}${why}\n`;
}

interface LiveBar {
  changed(): void;
  stop(): void;
}

/**
 * The bar on its live row: drawn at once, then at most once per REDRAW_MS tick of the Context's
 * clock when something changed (or a second passed), until stop. The ticks are sleeps of that
 * clock, ended by stop, so nothing outlives the batch.
 */
export function liveBar(row: LiveLine, clock: Clock, state: () => BatchBarState): LiveBar {
  const ticks = new AbortController();
  let dirty = false;
  let last = clock.now().getTime();
  const draw = (): void => {
    dirty = false;
    last = clock.now().getTime();
    const s = state();
    row.draw((columns) => batchBar(s, columns));
  };
  draw();
  void (async () => {
    while (!ticks.signal.aborted) {
      try {
        await clock.sleep(REDRAW_MS, ticks.signal);
      } catch {
        return;
      }
      if (ticks.signal.aborted) return;
      if (dirty || clock.now().getTime() - last >= REFRESH_MS) draw();
    }
  })();
  return {
    changed: () => {
      dirty = true;
    },
    stop: () => {
      ticks.abort();
      row.stop();
    },
  };
}
