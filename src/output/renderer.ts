import { TERMINAL_EVENTS, assertNever } from '../events.js';
import type { IO } from '../terminal/io.js';
import { createFinalRenderer } from './final.js';
import { createJsonRenderer } from './json.js';
import { createNdjsonRenderer } from './ndjson.js';
import type { OutputMode } from './modes.js';
import type { Renderer, RendererOptions } from './renderer-types.js';
import { createTextRenderer } from './text.js';

export type { Renderer, RendererOptions } from './renderer-types.js';

/** Async only because text mode may load the spinner (ora) on the way. */
export async function createRenderer(mode: OutputMode, io: IO, opts: RendererOptions = {}): Promise<Renderer> {
  switch (mode) {
    case 'text':
      return endsAtTerminalEvent(await createTextRenderer(io, opts));
    case 'ndjson':
      return endsAtTerminalEvent(createNdjsonRenderer(io));
    case 'final':
      return endsAtTerminalEvent(createFinalRenderer(io));
    case 'json':
      return endsAtTerminalEvent(createJsonRenderer(io));
    default:
      return assertNever(mode);
  }
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
