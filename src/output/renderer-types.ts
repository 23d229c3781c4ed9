import type { NsedEvent } from '../events/events.js';
import type { ProgressMode } from './progress-mode.js';

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
  /** The clock of the elapsed time in the progress line (default: the system clock). */
  now?: () => number;
  /** --progress, resolved for this run: `live` (the default) as before, `plain` lines, or `none`. */
  progress?: ProgressMode;
  /**
   * The turn's session was created for it: a turn that never reached the orchestrator takes it
   * away again, so `-o json` then names no session (docs/usage.md "Output modes").
   */
  newSession?: boolean;
}
