import { TERMINAL_EVENTS, assertNever, type NsedEvent } from '../api/events.js';
import type { IO } from '../terminal/io.js';
import { createFinalRenderer } from './final.js';
import { createJsonRenderer } from './json.js';
import { createNdjsonRenderer } from './ndjson.js';
import { createTextRenderer } from './text.js';

export type OutputMode = 'text' | 'ndjson' | 'final' | 'json';

export const OUTPUT_MODES: readonly OutputMode[] = ['text', 'ndjson', 'final', 'json'];

/**
 * Shows one turn. Events arrive in order: turn-start, job, …, then exactly one of finish or
 * error. close() waits until everything written has been flushed (call it before exiting).
 */
export interface Renderer {
  onEvent(e: NsedEvent): void;
  close(): Promise<void>;
}

export interface RendererOptions {
  /** text mode: after the answer, tell the user how to continue the session (on stderr). */
  showSessionHint?: boolean;
}

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
