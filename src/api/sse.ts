import { createParser, type EventSourceParser } from 'eventsource-parser';
import { NsedError } from '../errors.js';

/**
 * Bytes -> SSE messages. A streaming TextDecoder always decodes UTF-8 whatever the headers
 * say, never splits a character across network reads, turns invalid bytes into U+FFFD and
 * strips only the first BOM of each connection (docs/reliability.md #3, #4, #5);
 * eventsource-parser does the WHATWG field rules (docs/reliability.md #6-#9, #11).
 */

export const DEFAULT_MAX_EVENT_BYTES = 64 * 1024 * 1024;

export interface SseMessage {
  readonly data: string;
  /** The `event:` field, undefined when absent or empty (the default type). */
  readonly event?: string | undefined;
}

export interface SseReader {
  push(bytes: Uint8Array): void;
  /**
   * The body ended. A last event without its closing blank line is not dispatched: the
   * WHATWG rules throw pending data away at EOF, and the stream counts as truncated (docs/reliability.md #10).
   */
  end(): void;
}

export function createSseReader(onMessage: (m: SseMessage) => void, opts: { maxEventBytes?: number } = {}): SseReader {
  const maxEventBytes = opts.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  const decoder = new TextDecoder('utf-8');
  const parser: EventSourceParser = createParser({
    // The parser's own message, not a copy: a long answer is hundreds of thousands of them.
    onEvent: onMessage,
    onError: (e) => {
      if (e.type === 'max-buffer-size-exceeded') {
        throw new NsedError('server', `an event of the stream exceeded ${formatSize(maxEventBytes)} without ending`);
      }
    },
    maxBufferSize: maxEventBytes,
  });
  // A CR at the end of a read is a complete line end, but the parser would hold it back to
  // see whether an LF follows, delaying (at EOF: losing) the event it ends. So the reader
  // completes it at once and swallows an LF that starts the next read (docs/reliability.md #1).
  let swallowLf = false;

  function feed(text: string): void {
    let t = text;
    if (swallowLf && t.length > 0) {
      if (t.charCodeAt(0) === 10) t = t.slice(1);
      swallowLf = false;
    }
    if (t.length === 0) return;
    if (t.charCodeAt(t.length - 1) === 13) {
      swallowLf = true;
      t += '\n';
    }
    parser.feed(t);
  }

  return {
    push(bytes) {
      feed(decoder.decode(bytes, { stream: true }));
    },
    end() {
      feed(decoder.decode());
    },
  };
}

function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
