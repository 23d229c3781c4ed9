import { NsedError } from '../errors.js';
import { answerDelta, createChunkDecoder, isRecord, streamError } from './decode-chunk.js';
import type { StreamEvent } from '../events/events.js';
import type { SseMessage } from './sse.js';
import { createSseProcessor, type StreamProcessor } from './sse-processor.js';
import { type ChunkTemplate, templateAround, textIn, withText } from './chunk-template.js';

/**
 * Probes in a row that gave no template used since: past this many the stream is parsed in
 * full, so a stream whose every chunk differs costs no more than a few probes.
 */
const MAX_TEMPLATE_TRIES = 16;

/** The compat stream: `data:` chunks of `chat.completion.chunk`, ended by `[DONE]` or every choice finishing. */
export function createStreamProcessor(opts: { maxEventBytes?: number; token?: string } = {}): StreamProcessor {
  const chunks = createChunkDecoder(opts.token);
  let template: ChunkTemplate | undefined;
  let tries = 0;

  function decode(m: SseMessage, index: number, out: StreamEvent[]): boolean {
    if (m.event === 'error') throw streamError(parseOrText(m.data), opts.token);
    if (m.event !== undefined && m.event !== 'message') return false;
    // A chunk like the last text chunk but for its text means what that one meant (chunk-template.ts).
    if (template !== undefined) {
      const text = textIn(template, m.data);
      if (text !== undefined) {
        // A template that pays is worth learning again when the stream changes (a new `created`).
        tries = 0;
        if (text !== '') out.push({ type: 'text', text, index });
        return false;
      }
    }
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
    const before = out.length;
    if (chunks.decode(chunk, index, out) && tries < MAX_TEMPLATE_TRIES) {
      const e = out[before];
      if (e?.type === 'text') learn(m.data, chunk, e.text);
    }
    // `stop` or `tool_calls` on every choice ends the turn; a server that then never sends
    // [DONE] must not cost a resume (docs/reliability.md #23).
    return chunks.ended && finish(index, out);
  }

  /** Keeps the text chunk `data` as the template when its probe proves it one (chunk-template.ts). */
  function learn(data: string, chunk: unknown, text: string): void {
    const t = templateAround(data, text);
    // A text that needs escapes teaches nothing, at the price of a scan; only a probe counts.
    if (t === undefined) return;
    tries += 1;
    const probeText = text === 'x' ? 'y' : 'x';
    if (sameBut(parseOrText(withText(t, probeText)), probeText, chunk, text)) template = t;
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

/** `probe` is `chunk` but for choice 0's `delta.content`, which is `probeText` there and `text` in `chunk`. */
function sameBut(probe: unknown, probeText: string, chunk: unknown, text: string): boolean {
  if (!isRecord(probe) || !Array.isArray(probe['choices'])) return false;
  const delta = answerDelta(probe['choices']);
  if (delta === undefined || delta['content'] !== probeText) return false;
  delta['content'] = text;
  return JSON.stringify(probe) === JSON.stringify(chunk);
}

function parseOrText(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return data;
  }
}
