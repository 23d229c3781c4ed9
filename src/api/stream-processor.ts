import { NsedError } from '../errors.js';
import { createChunkDecoder, streamError } from './decode-chunk.js';
import type { StreamEvent } from '../events.js';
import type { SseMessage } from './sse.js';
import { createSseProcessor, type StreamProcessor } from './sse-processor.js';

/** The compat stream: `data:` chunks of `chat.completion.chunk`, ended by `[DONE]` or every choice finishing. */
export function createStreamProcessor(opts: { maxEventBytes?: number; token?: string } = {}): StreamProcessor {
  const chunks = createChunkDecoder(opts.token);

  function decode(m: SseMessage, index: number, out: StreamEvent[]): boolean {
    if (m.event === 'error') throw streamError(parseOrText(m.data), opts.token);
    if (m.event !== undefined && m.event !== 'message') return false;
    if (m.data === '[DONE]') return finish(index, out);
    // An empty `data` line carries no chunk; tolerate it like any degenerate chunk (docs/reliability.md #20).
    if (m.data.trim() === '') return false;
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
    return chunks.ended && finish(index, out);
  }

  function finish(index: number, out: StreamEvent[]): true {
    // null: [DONE] without a finish_reason, which only the orchestrator can interpret.
    const end: StreamEvent = { type: 'end', finish_reason: chunks.finishReason ?? null, index };
    if (chunks.mode !== undefined) end.mode = chunks.mode;
    out.push(end);
    return true;
  }

  return createSseProcessor(opts, decode);
}

function parseOrText(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return data;
  }
}
