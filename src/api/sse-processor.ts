import { NsedError } from '../errors.js';
import type { StreamEvent } from '../events/events.js';
import { createSseReader, type SseMessage } from './sse.js';

/**
 * One HTTP stream's bytes -> StreamEvents, without any I/O, so the parser layer can be fed
 * split at every byte position in tests and driven by the socket loop in production.
 */
export interface StreamProcessor {
  /** Appends the events completed by these bytes to `out`; throws the stream's failure after appending. */
  push(bytes: Uint8Array, out: StreamEvent[]): void;
  /** The body ended: appends what is left, then throws unless `[DONE]` was seen (docs/reliability.md #26). */
  end(out: StreamEvent[]): void;
  /** An exact `[DONE]` arrived, or every choice finished: the caller closes the connection at once (docs/reliability.md #18). */
  readonly done: boolean;
  /** Data events seen so far (the index of the last one). */
  readonly events: number;
}

/**
 * What one stream's events mean: appends the events `m` completes to `out` (`index` is its
 * number in the stream) and returns true when the stream has said all it will (the turn's
 * end), or throws the stream's failure.
 */
export type MessageDecoder = (m: SseMessage, index: number, out: StreamEvent[]) => boolean;

export function eofError(): NsedError {
  return new NsedError('network', 'the stream ended before the deliberation finished (no [DONE])', { drop: 'eof' });
}

/**
 * The shell both stream processors share (the compat chunks and the native job events): the
 * SSE reader, the event count, and nothing read after the end, even within the same read
 * (docs/reliability.md #18). A body that stops before its end is an eof, not a failed job.
 */
export function createSseProcessor(opts: { maxEventBytes?: number }, decode: MessageDecoder): StreamProcessor {
  let index = 0;
  let done = false;
  let out: StreamEvent[] = [];

  const reader = createSseReader(
    (m) => {
      index++;
      if (!done && decode(m, index, out)) done = true;
    },
    opts.maxEventBytes === undefined ? {} : { maxEventBytes: opts.maxEventBytes },
  );

  return {
    push(bytes, sink) {
      if (done) return;
      out = sink;
      reader.push(bytes);
    },
    end(sink) {
      if (!done) {
        out = sink;
        reader.end();
      }
      if (!done) throw eofError();
    },
    get done() {
      return done;
    },
    get events() {
      return index;
    },
  };
}
