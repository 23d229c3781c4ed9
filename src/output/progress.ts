import type { EventOf, NsedEvent } from '../events/events.js';
import type { IO } from '../terminal/io.js';
import { stderrRows } from '../terminal/fit-rows.js';
import { safeWriter } from '../terminal/safe-writer.js';
import { oneLine } from '../terminal/sanitize.js';
import { canAnimate, createSpinner } from '../terminal/spinner.js';
import { createStyle } from '../terminal/style.js';
import { advanceProgress, continueHint, initialProgress, progressLine, type ProgressState } from './progress-state.js';
import type { Renderer } from './renderer-types.js';
import { jobLine, roundLine, schemaRetryLine } from './text.js';

/** How a turn's progress is watched: the time, and whether to end with the continue hint. */
export interface ProgressOptions {
  now: () => number;
  /** The session exists in the store, so `nsed continue -s` can follow it (false with --no-save). */
  continueHint: boolean;
}

/** The persistent stderr line an event earns (the same lines text mode prints), if any. */
export function noteFor(e: NsedEvent, start: EventOf<'turn-start'> | undefined, s: ProgressState): string | undefined {
  switch (e.type) {
    case 'job':
      return jobLine(start, e.job_id);
    case 'round':
      return e.scored ? roundLine(e, s.claims) : undefined;
    case 'injection':
      return `injected at round ${e.round} (#${e.sequence}): ${oneLine(e.message, 80)}`;
    case 'finalized':
      return `finalized · ${oneLine(e.chosen_agent_id, 40)} chosen at round ${e.round}`;
    case 'tool-call':
      return `tool call requested: ${oneLine(e.name, 80)}(${oneLine(e.arguments, 80)})`;
    case 'tool-result':
      return `tool result ${oneLine(e.id, 80)}: exit ${e.exit_code}`;
    case 'reconnect':
      return `reconnecting (attempt ${e.attempt}): ${oneLine(e.reason)}`;
    case 'schema-retry':
      return schemaRetryLine(e);
    default:
      return undefined;
  }
}

/**
 * Progress on a terminal's stderr for the modes whose stdout stays quiet until the end (final,
 * json, ndjson): the text mode's dim lines, and a status line with the phase, round, elapsed
 * time, convergence, leader and contested claims: a spinner on a capable terminal, plain lines
 * (one per phase or round) on a 0-column or dumb one. Off a terminal, or with -q, it adds
 * nothing: stdout and stderr of a script stay exactly what they were.
 */
export async function withProgress(inner: Renderer, io: IO, opts: ProgressOptions): Promise<Renderer> {
  if (!io.stderrIsTTY || io.quiet) return inner;
  const err = safeWriter(io.stderr);
  const style = createStyle(io);
  const animate = canAnimate(io);
  const spinner = await createSpinner(io, 'deliberating');
  const rows = await stderrRows(io);
  const started = opts.now();
  let state = initialProgress;
  let start: EventOf<'turn-start'> | undefined;
  let lastPlain = '';
  let ticker: ReturnType<typeof setInterval> | undefined;

  const status = (): string => progressLine(state, opts.now() - started);
  const line = (text: string): void => spinner.clearWhile(() => err.write(`${rows(text).map(style.dim).join('\n')}\n`));
  const stop = (): void => {
    if (ticker !== undefined) clearInterval(ticker);
    ticker = undefined;
    spinner.stop();
  };

  return {
    onEvent(e) {
      if (e.type === 'finish' || e.type === 'error') {
        // Off the line before stdout gets the answer: both may be the same terminal.
        stop();
        inner.onEvent(e);
        if (e.type === 'finish' && opts.continueHint) line(continueHint(e.session));
        return;
      }
      if (e.type === 'turn-start') {
        start = e;
        spinner.start();
        // Elapsed time moves while nothing else does; unref'd, it never keeps a run alive.
        if (animate) ticker = setInterval(() => spinner.update(status()), 1000).unref();
      }
      state = advanceProgress(state, e);
      const note = noteFor(e, start, state);
      if (note !== undefined) line(note);
      if (animate) {
        spinner.update(status());
      } else {
        const key = `${state.phase} ${state.round}`;
        if (state.phase !== 'starting' && key !== lastPlain) {
          lastPlain = key;
          line(status());
        }
      }
      inner.onEvent(e);
    },
    async close() {
      stop();
      await Promise.all([inner.close(), err.drain()]);
    },
  };
}
