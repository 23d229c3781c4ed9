import { safeWriter } from '../terminal/safe-writer.js';
import { sanitizeForTerminal } from '../terminal/sanitize.js';
import type { IO } from '../terminal/io.js';
import type { Renderer } from './renderer-types.js';

/**
 * `-o final`: nothing until the turn ends, then the answer and a newline. The answer is the
 * finish event's content, the same string NDJSON consumers get; with --schema, the parsed
 * value as compact JSON, and nothing when it does not match. On error, nothing at all.
 */
export function createFinalRenderer(io: IO): Renderer {
  const out = safeWriter(io.stdout);
  return {
    onEvent(e) {
      if (e.type !== 'finish') return;
      if (e.structured !== undefined) {
        if (e.schema_errors === undefined) out.write(`${JSON.stringify(e.structured)}\n`);
        return;
      }
      const content = io.stdoutIsTTY ? sanitizeForTerminal(e.content) : e.content;
      out.write(content.endsWith('\n') ? content : `${content}\n`);
    },
    close: () => out.drain(),
  };
}
