import { TERMINAL_EVENTS, assertNever } from '../events/events.js';
import type { IO } from '../terminal/io.js';
import type { OutputMode } from './modes.js';
import type { Renderer, RendererOptions } from './renderer-types.js';
import { redactingRenderer } from './shown-event.js';

export type { Renderer, RendererOptions } from './renderer-types.js';

/**
 * Every mode shows the events as stdout may show them: the run's secrets redacted everywhere
 * but in the answer (output/shown-event.ts).
 *
 * Each mode's renderer is loaded when chosen: the text renderer brings chalk and the terminal
 * styling, which `-o final` in a shell loop has no use for.
 */
export async function createRenderer(mode: OutputMode, io: IO, opts: RendererOptions = {}): Promise<Renderer> {
  return redactingRenderer(await modeRenderer(mode, io, opts), io.secrets);
}

async function modeRenderer(mode: OutputMode, io: IO, opts: RendererOptions): Promise<Renderer> {
  if (opts.progress === 'plain' || opts.progress === 'none') return endsAtTerminalEvent(await steady(mode, io, opts));
  switch (mode) {
    case 'text':
      return endsAtTerminalEvent(await (await import('./text.js')).createTextRenderer(io, opts));
    case 'ndjson':
      return endsAtTerminalEvent(await watched((await import('./ndjson.js')).createNdjsonRenderer(io), io, opts));
    case 'final':
      return endsAtTerminalEvent(await watched((await import('./final.js')).createFinalRenderer(io), io, opts));
    case 'json':
      return endsAtTerminalEvent(await watched((await import('./json.js')).createJsonRenderer(io, opts), io, opts));
    default:
      return assertNever(mode);
  }
}

/**
 * `--progress plain|none`: the mode's output with no live progress of its own (text mode's notes
 * and spinner off, as with -q), and with `plain` the plain lines instead; -q still silences them.
 */
async function steady(mode: OutputMode, io: IO, opts: RendererOptions): Promise<Renderer> {
  const inner = await (async (): Promise<Renderer> => {
    switch (mode) {
      case 'text':
        return (await import('./text.js')).createTextRenderer(
          Object.create(io, { quiet: { value: true } }) as IO,
          opts,
        );
      case 'ndjson':
        return (await import('./ndjson.js')).createNdjsonRenderer(io);
      case 'final':
        return (await import('./final.js')).createFinalRenderer(io);
      case 'json':
        return (await import('./json.js')).createJsonRenderer(io, opts);
      default:
        return assertNever(mode);
    }
  })();
  if (opts.progress === 'none' || io.quiet) return inner;
  const [{ plainProgress }, { stderrRows }] = await Promise.all([
    import('./plain-progress.js'),
    import('../terminal/fit-rows.js'),
  ]);
  return plainProgress(inner, io, await stderrRows(io));
}

/** The quiet-until-the-end modes, with progress on stderr when it is a terminal. */
async function watched(inner: Renderer, io: IO, opts: RendererOptions): Promise<Renderer> {
  if (!io.stderrIsTTY || io.quiet) return inner;
  const { withProgress } = await import('./progress.js');
  return withProgress(inner, io, { now: opts.now ?? Date.now, continueHint: opts.showSessionHint === true });
}

/** Whatever a caller sends after finish or error is dropped: a run has exactly one terminal event. */
export function endsAtTerminalEvent(inner: Renderer): Renderer {
  let ended = false;
  return {
    onEvent(e) {
      if (ended) return;
      if (TERMINAL_EVENTS.includes(e.type)) ended = true;
      inner.onEvent(e);
    },
    close: () => inner.close(),
  };
}
