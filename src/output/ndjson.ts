import { NDJSON_SCHEMA_VERSION } from '../events/events.js';
import { safeWriter } from '../terminal/safe-writer.js';
import type { IO } from '../terminal/io.js';
import type { Renderer } from './renderer-types.js';

/**
 * JSON.stringify escapes C0 controls but leaves DEL, the 8-bit C1 controls, BiDi controls and
 * U+2028/U+2029 raw. They can only occur inside strings, where `\uXXXX` means the same thing,
 * so escaping them keeps the JSON identical to a parser and inert on a terminal (docs/reliability.md #78).
 */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escapeChar = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** One line of machine output: compact JSON, terminal-inert, ending in a newline. */
export function toJsonLine(value: unknown): string {
  return `${JSON.stringify(value).replace(UNSAFE_IN_JSON, escapeChar)}\n`;
}

/**
 * `-o ndjson`: one line per event, `{v, seq, ...event}`. The lines of the events handled in one
 * synchronous run (one network read's batch) go out in one write at the end of it: a write per
 * line was a system call per event on a pipe and made the stream 1.69x the floor's time. A line never waits past the current task, so never across an await.
 */
export function createNdjsonRenderer(io: IO): Renderer {
  const out = safeWriter(io.stdout);
  let seq = 0;
  let pending = '';
  const flush = (): void => {
    const text = pending;
    pending = '';
    out.write(text);
  };
  return {
    onEvent(e) {
      seq += 1;
      if (pending === '') queueMicrotask(flush);
      pending += toJsonLine({ v: NDJSON_SCHEMA_VERSION, seq, ...e });
    },
    close: () => {
      flush();
      return out.drain();
    },
  };
}
