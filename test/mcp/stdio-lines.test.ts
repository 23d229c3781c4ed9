import { describe, expect, it } from 'vitest';
import { messageLines } from '../../src/mcp/stdio-lines.js';

/** Feeds `chunks` through messageLines(cap) and returns the lines it passed and the sizes it dropped. */
async function through(cap: number, chunks: string[]): Promise<{ lines: string[]; dropped: number[] }> {
  const dropped: number[] = [];
  const t = messageLines(cap, (n) => dropped.push(n));
  const out: Buffer[] = [];
  t.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise((resolve) => t.on('end', resolve));
  for (const c of chunks) t.write(Buffer.from(c));
  t.end();
  await ended;
  return { lines: Buffer.concat(out).toString().split('\n').slice(0, -1), dropped };
}

describe('the lines of the MCP host stdin, over a cap per message (reliability #289)', () => {
  it('passes whole lines, however the chunks cut them', async () => {
    expect(await through(10, ['ab', 'c\nde', 'f\n\ng', 'h\n'])).toEqual({
      lines: ['abc', 'def', '', 'gh'],
      dropped: [],
    });
  });

  it('passes a line of exactly the cap, drops one a byte over it with its size, and goes on with the next', async () => {
    const r = await through(5, ['12345\n123', '456\nok\n']);
    expect(r).toEqual({ lines: ['12345', 'ok'], dropped: [6] });
  });

  it('drops a line that runs over the cap across many chunks, counting every byte, and keeps the lines around it', async () => {
    const r = await through(8, ['first\nxxxxx', 'xxxxx', 'xxxxx', 'xx\nlast\n']);
    expect(r).toEqual({ lines: ['first', 'last'], dropped: [17] });
  });

  it('passes nothing of a line the stream ends inside', async () => {
    expect(await through(8, ['done\npart'])).toEqual({ lines: ['done'], dropped: [] });
  });
});
