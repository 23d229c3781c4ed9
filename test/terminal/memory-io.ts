import { PassThrough } from 'node:stream';
import { clearLine, cursorTo, moveCursor } from 'node:readline';
import { createIO } from '../../src/terminal/create-io.js';
import type { IO } from '../../src/terminal/io.js';
import { WAIT_MS } from '../harness/limits.js';

/** A PassThrough that records everything written to it, optionally dressed as a terminal. */
export class Capture extends PassThrough {
  private chunks: string[] = [];
  isTTY: boolean;
  columns = 80;

  constructor(tty: boolean) {
    super();
    this.isTTY = tty;
    this.setEncoding('utf8');
    this.on('data', (chunk: string) => this.chunks.push(chunk));
  }

  get text(): string {
    return this.chunks.join('');
  }

  /**
   * Resolves once what was written so far satisfies `holds`, looking again at each write: a test
   * waits for the output it expects, never for a guessed time (WAIT_MS only guards against a hang).
   */
  async until(holds: (text: string) => boolean): Promise<void> {
    if (holds(this.text)) return;
    await new Promise<void>((resolve, reject) => {
      const look = (): void => {
        if (!holds(this.text)) return;
        clearTimeout(timer);
        this.off('data', look);
        resolve();
      };
      const timer = setTimeout(() => {
        this.off('data', look);
        reject(new Error(`the output never matched; it ends: ${JSON.stringify(this.text.slice(-300))}`));
      }, WAIT_MS);
      this.on('data', look);
    });
  }
}

/** A Capture with the cursor methods of a tty.WriteStream, so a spinner can draw on it. */
export class FakeTerminal extends Capture {
  constructor() {
    super(true);
  }
  cursorTo(x: number): boolean {
    return cursorTo(this, x);
  }
  clearLine(dir: -1 | 0 | 1): boolean {
    return clearLine(this, dir);
  }
  moveCursor(dx: number, dy: number): boolean {
    return moveCursor(this, dx, dy);
  }
}

export interface MemoryIO {
  io: IO;
  stdout: Capture;
  stderr: Capture;
}

export interface MemoryIOOptions {
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  /** stderr is a FakeTerminal (a TTY a spinner can draw on). */
  stderrTerminal?: boolean;
  /** stdout and stderr are one terminal, as in an interactive shell. */
  sharedTerminal?: boolean;
  quiet?: boolean;
  noColor?: boolean;
  env?: Record<string, string | undefined>;
}

/** An IO over in-memory streams, built by the real createIO. Colour is off unless env forces it. */
export function memoryIO(opts: MemoryIOOptions = {}): MemoryIO {
  let stdout: Capture;
  let stderr: Capture;
  if (opts.sharedTerminal === true) {
    stdout = new FakeTerminal();
    stderr = stdout;
  } else {
    stdout = new Capture(opts.stdoutTTY === true);
    stderr = opts.stderrTerminal === true ? new FakeTerminal() : new Capture(opts.stderrTTY === true);
  }
  const stdin = new PassThrough();
  const env = opts.env ?? { NO_COLOR: '1' };
  const io = createIO({ stdout, stderr, stdin }, env, { quiet: opts.quiet === true, noColor: opts.noColor === true });
  return { io, stdout, stderr };
}

/** Lets queued stream callbacks and 'data' events run. */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
