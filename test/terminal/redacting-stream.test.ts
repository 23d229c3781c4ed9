// stderr through the run's secrets (docs/reliability.md #89): a token split over two writes is
// still caught, the stream keeps its own properties, and a spinner hooking `write` (as ora does)
// does not loop back into itself.
import { describe, expect, it } from 'vitest';
import { Secrets } from '../../src/secrets.js';
import { redactingStream } from '../../src/terminal/redacting-stream.js';
import { Capture, FakeTerminal, settle } from './memory-io.js';

const TOKEN = 'canary-5e6f7a8b9c';

function wrapped(): { capture: Capture; r: ReturnType<typeof redactingStream> } {
  const secrets = new Secrets();
  secrets.add(TOKEN);
  const capture = new Capture(true);
  return { capture, r: redactingStream(capture, secrets) };
}

describe('a redacting stderr', () => {
  it('catches a token split over writes, and writes what it held back at the end', async () => {
    const { capture, r } = wrapped();
    r.stream.write(`note: ${TOKEN.slice(0, 6)}`);
    r.stream.write(`${TOKEN.slice(6)} seen\n`);
    r.stream.write(`trailing ${TOKEN.slice(0, 3)}`);
    r.end();
    await settle();
    expect(capture.text).toBe(`note: *** seen\ntrailing ${TOKEN.slice(0, 3)}`);
    expect((r.stream as unknown as { isTTY: boolean }).isTTY).toBe(true);
  });

  it('calls a write callback, also for a piece it holds back', async () => {
    const { r } = wrapped();
    const done: string[] = [];
    r.stream.write('whole line\n', () => done.push('line'));
    r.stream.write(TOKEN.slice(0, 4), () => done.push('held'));
    await settle();
    expect(done.sort()).toEqual(['held', 'line']);
  });

  it('takes a hooked write (a spinner) without looping, still redacted', async () => {
    const { capture, r } = wrapped();
    const stream = r.stream as NodeJS.WritableStream & { write: (s: string) => boolean };
    const original = stream.write;
    let hookedCalls = 0;
    stream.write = (s: string) => {
      hookedCalls += 1;
      return original(s);
    };
    stream.write(`hooked ${TOKEN}\n`);
    stream.write = original;
    stream.write('after\n');
    await settle();
    expect(hookedCalls).toBe(1);
    expect(capture.text).toBe('hooked ***\nafter\n');
  });

  it('sends a cursor move through the same ordered path as text: it never overtakes what is held back (reliability #165)', async () => {
    const secrets = new Secrets();
    secrets.add(TOKEN);
    const terminal = new FakeTerminal();
    const { stream } = redactingStream(terminal, secrets);
    const cursor = stream as unknown as FakeTerminal;
    stream.write('see http:');
    cursor.cursorTo(0);
    stream.write('\x1b[?2026h');
    cursor.clearLine(1);
    cursor.moveCursor(0, -1);
    stream.write('x\n');
    await settle();
    expect(terminal.text).toBe('see http:\x1b[1G\x1b[?2026h\x1b[0K\x1b[1Ax\n');
  });
});
