import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { usageError } from '../errors.js';
import { TERMINAL_EVENTS } from '../events/events.js';
import type { IO } from '../terminal/io.js';
import { oneLine } from '../terminal/sanitize.js';
import { NdjsonReadError, readNdjsonLine } from './ndjson-read.js';
import { waitingMessage } from './progress-state.js';
import { createRenderer } from './renderer.js';
import type { Renderer } from './renderer-types.js';

export interface RenderStreamOptions {
  /** Write the progress lines to stderr, as text mode did off a terminal. */
  stderr: boolean;
  /** How the input is named in an error: a path, or "standard input". */
  name: string;
}

/**
 * Feeds a saved `-o ndjson` stream, line by line as it arrives, to the text renderer, the same
 * one a live `-o text` run uses, so what it prints is what that run printed. Each run in the
 * stream (an export holds one per turn) gets a renderer of its own, as each live run had. The
 * renderer sees stderr as off a terminal (no spinner, no continue hint); without `stderr` its
 * progress lines go nowhere.
 */
export async function renderStream(input: NodeJS.ReadableStream, io: IO, opts: RenderStreamOptions): Promise<void> {
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const view: IO = {
    ...io,
    stderr: opts.stderr ? io.stderr : sink,
    stderrIsTTY: false,
    quiet: io.quiet || !opts.stderr,
  };
  let renderer: Renderer | undefined;
  /** This run's calls without a result: a run that ends at them ends in exit 10's error line. */
  let open: Array<{ id: string; name: string }> = [];
  let n = 0;
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const text of lines) {
      n++;
      let read;
      try {
        read = readNdjsonLine(text, n);
      } catch (err) {
        if (!(err instanceof NdjsonReadError)) throw err;
        throw usageError(
          `${oneLine(opts.name, 200)}: ${err.message}`,
          err.newer ? 'a newer nsed wrote it: upgrade nsed to render it' : 'nsed render reads what -o ndjson wrote',
        );
      }
      if (read.kind !== 'event') continue;
      const e = read.event;
      renderer ??= await createRenderer('text', view, {});
      renderer.onEvent(e);
      if (e.type === 'tool-call') open.push({ id: e.id, name: e.name });
      if (e.type === 'tool-result') open = open.filter((c) => c.id !== e.id);
      if (!TERMINAL_EVENTS.includes(e.type)) continue;
      await renderer.close();
      renderer = undefined;
      // A run that failed, or stopped at calls it could not settle, ends its text stderr with the
      // error line nsed printed after the events (its hint is not in the stream).
      const error =
        e.type === 'error'
          ? e.message
          : e.type === 'finish' && e.finish_reason === 'tool_calls' && open.length > 0
            ? waitingMessage(open)
            : undefined;
      open = [];
      if (error !== undefined && opts.stderr && !io.quiet) view.stderr.write(`nsed: ${oneLine(error, 500)}\n`);
    }
  } finally {
    lines.close();
    await renderer?.close();
  }
}
