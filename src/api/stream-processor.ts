import { NsedError } from '../errors.js';
import { createChunkDecoder, streamError } from './decode-chunk.js';
import type { StreamEvent } from '../events.js';
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

export function eofError(): NsedError {
  return new NsedError('network', 'the stream ended before the deliberation finished (no [DONE])', { drop: 'eof' });
}

export function createStreamProcessor(opts: { maxEventBytes?: number; token?: string } = {}): StreamProcessor {
  const chunks = createChunkDecoder(opts.token);
  let index = 0;
  let done = false;
  let out: StreamEvent[] = [];

  function onMessage(m: SseMessage): void {
    index++;
    // Anything after [DONE] is ignored, even within the same read (docs/reliability.md #18).
    if (done) return;
    if (m.event === 'error') throw streamError(parseOrText(m.data), opts.token);
    if (m.event !== undefined && m.event !== 'message') return;
    if (m.data === '[DONE]') return finish();
    // An empty `data` line carries no chunk; tolerate it like any degenerate chunk (docs/reliability.md #20).
    if (m.data.trim() === '') return;
    let chunk: unknown;
    try {
      chunk = JSON.parse(m.data) as unknown;
    } catch {
      // The index, never the payload: it may carry anything (docs/reliability.md #17).
      throw new NsedError('server', `malformed chunk at event ${index} of the stream`, { drop: 'malformed' });
    }
    chunks.decode(chunk, index, out);
    // `stop` or `tool_calls` on every choice ends the turn; a server that then never sends
    // [DONE] must not cost a resume (docs/reliability.md #23).
    if (chunks.ended) finish();
  }

  function finish(): void {
    done = true;
    // null: [DONE] without a finish_reason, which only the orchestrator can interpret.
    const end: StreamEvent = { type: 'end', finish_reason: chunks.finishReason ?? null, index };
    if (chunks.mode !== undefined) end.mode = chunks.mode;
    out.push(end);
  }

  const reader = createSseReader(
    onMessage,
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

function parseOrText(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return data;
  }
}
