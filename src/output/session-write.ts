import { NsedError } from '../errors.js';
import type { IO } from '../terminal/io.js';
import { safeWriter } from '../terminal/safe-writer.js';

/**
 * Writes a command's whole output to stdout and waits for it to be flushed. A reader that went
 * away (`| head`) is fine (docs/reliability.md #69); a stream that failed otherwise (a full disk behind `>`) is an
 * error, so a script never takes a truncated listing or export for a whole one.
 */
export async function writeStdout(io: Pick<IO, 'stdout'>, text: string): Promise<void> {
  const out = safeWriter(io.stdout);
  out.write(text);
  await assertStdoutWritten(io);
}

/**
 * Waits for stdout to flush and fails if it broke for any reason but a reader that left: exit 11
 * (io) naming the error, never 1 (docs/reliability.md #85).
 */
export async function assertStdoutWritten(io: Pick<IO, 'stdout'>): Promise<void> {
  const out = safeWriter(io.stdout);
  await out.drain();
  const failure = out.failure;
  if (failure !== undefined) {
    const code = (failure as NodeJS.ErrnoException).code ?? failure.message;
    throw new NsedError('io', `cannot write to standard output: ${code}`, { cause: failure });
  }
}
