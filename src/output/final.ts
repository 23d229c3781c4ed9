import { safeWriter } from '../terminal/safe-writer.js';
import { sanitizeForTerminal } from '../terminal/sanitize.js';
import type { IO } from '../terminal/io.js';
import type { Renderer } from './renderer-types.js';

/**
 * `-o final`: nothing until the turn ends, then the answer and a newline. The answer is the
 * finish event's content, the same string NDJSON consumers get. On error, nothing at all.
 */
export function createFinalRenderer(io: IO): Renderer {
  const out = safeWriter(io.stdout);
  return {
    onEvent(e) {
      if (e.type !== 'finish') return;
      const content = io.stdoutIsTTY ? sanitizeForTerminal(e.content) : e.content;
      out.write(content.endsWith('\n') ? content : `${content}\n`);
    },
    close: () => out.drain(),
  };
}
