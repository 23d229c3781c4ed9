import type { Secrets } from '../secrets.js';

/**
 * The terminal as data (gh's IOStreams): commands and renderers write through this object and
 * ask it what the terminal can do, so tests build one around in-memory streams.
 */
export interface IO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly stdinIsTTY: boolean;
  /** Colour on stderr (NO_COLOR / FORCE_COLOR / --no-color already applied). */
  readonly color: boolean;
  /** -q: no progress lines or spinner on stderr. */
  readonly quiet: boolean;
  /** --verbose: notes on what nsed does (URL, requests, store), on stderr. */
  readonly verbose: boolean;
  /** TERM=dumb: the terminal shows lines but cannot move the cursor. */
  readonly dumb: boolean;
  /**
   * The run's secrets: whatever a renderer shows of an event besides the answer passes through
   * them (output/shown-event.ts), as stderr does through its redacting stream.
   */
  readonly secrets: Secrets;
  /** The regular file stdout writes to (`> answer.md`), when it is one (terminal/stdout-file.ts). */
  readonly stdoutFile?: string | undefined;
}
