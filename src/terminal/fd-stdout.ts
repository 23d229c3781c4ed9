import { EventEmitter } from 'node:events';
import { writeSync } from 'node:fs';

/**
 * A piped or redirected stdout written straight to its file descriptor, for the commands that
 * print their whole output in one go (`sessions ls`, `sessions show`, help). Node builds a
 * socket for a piped process.stdout (node:net and node:stream, 5-7 ms of an empty `sessions ls`
 * that `node -e 0` never pays); a blocking write needs none of it.
 *
 * It keeps the rules of the stream it replaces, as SafeWriter reads them
 * (docs/reliability.md #69): a partial write continues where it stopped; EPIPE (the reader
 * left) is reported as the stream reports it, through the write's callback and an 'error'
 * event; anything else (EAGAIN
 * on a pipe another process made non-blocking, a full disk, a closed descriptor) hands that
 * write and every later one to the real stream, which waits for a full pipe to drain and
 * reports errors exactly as it does for the other commands. Writes stay in order: once the
 * stream has taken over, every byte goes through it.
 *
 * Only for a descriptor that is not a terminal: a terminal needs the tty stream (columns, the
 * pager).
 */
class FdStdout extends EventEmitter {
  readonly isTTY = false;
  private stream: NodeJS.WritableStream | undefined;

  constructor(
    readonly fd: number,
    private readonly takeOver: () => NodeJS.WritableStream,
  ) {
    super();
  }

  get writable(): boolean {
    return this.stream?.writable ?? true;
  }

  write(
    chunk: string | Uint8Array,
    encoding?: BufferEncoding | ((err?: Error | null) => void),
    cb?: (err?: Error | null) => void,
  ): boolean {
    const done = typeof encoding === 'function' ? encoding : cb;
    if (this.stream !== undefined) return this.stream.write(chunk, done);
    const bytes =
      typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8') : chunk;
    let off = 0;
    try {
      while (off < bytes.length) off += writeSync(this.fd, bytes, off, bytes.length - off);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EPIPE') {
        queueMicrotask(() => {
          done?.(err as Error);
          this.emit('error', err);
        });
        return false;
      }
      const stream = this.takeOver();
      // Whoever listens for this stand-in's errors (SafeWriter) now hears the real stream's.
      stream.on('error', (e: unknown) => this.emit('error', e));
      this.stream = stream;
      return stream.write(bytes.subarray(off), done);
    }
    if (done !== undefined) queueMicrotask(() => done(null));
    return true;
  }

  end(cb?: () => void): this {
    if (this.stream !== undefined) this.stream.end(cb);
    else if (cb !== undefined) queueMicrotask(cb);
    return this;
  }
}

/**
 * Stdout on descriptor `fd` as the stream type the IO object carries. `takeOver` gives the real
 * stream (process.stdout) for what a blocking write cannot do. The stand-in implements what
 * SafeWriter and the IO object use (write with a callback, end, 'error', fd, isTTY); the commands
 * that get it write only through SafeWriter.
 */
export function fdStdout(fd: number, takeOver: () => NodeJS.WritableStream): NodeJS.WritableStream {
  return new FdStdout(fd, takeOver) as unknown as NodeJS.WritableStream;
}
