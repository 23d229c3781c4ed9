import type { Secrets } from '../secrets.js';

export interface RedactingStream {
  stream: NodeJS.WritableStream;
  /** Writes what was held back for the next piece (a possible start of a secret); call once, at the end of the run. */
  end(): void;
}

/**
 * The methods of a tty.WriteStream that draw by calling `this.write` (readline's cursor helpers).
 * Bound to the wrapper, so a cursor move takes the one ordered path every write takes: bound to
 * the stream itself, ora's `cursorTo(0)` overtook text the redactor held back and cut its
 * `ESC[?2026h` in two on the screen (docs/reliability.md #165).
 */
const DRAWS_THROUGH_WRITE = new Set<PropertyKey>(['cursorTo', 'moveCursor', 'clearLine', 'clearScreenDown']);

/**
 * `stream` with every write redacted by the run's secrets (docs/reliability.md #89). Everything
 * else (isTTY, columns, events, the descriptor the pager hands on) is the stream's own, so the
 * spinner and the pager see the terminal they draw on.
 */
export function redactingStream(stream: NodeJS.WritableStream, secrets: Secrets): RedactingStream {
  const redactor = secrets.streaming();
  // The stream's own write, taken once: a spinner that hooks `write` on the wrapper (ora does)
  // gets the redacting write as the original it calls, never a loop back into itself.
  const realWrite = stream.write.bind(stream) as (chunk: string, cb?: (err?: Error | null) => void) => boolean;
  let hooked: unknown;
  const write = (
    chunk: string | Uint8Array,
    encoding?: BufferEncoding | ((err?: Error | null) => void),
    cb?: (err?: Error | null) => void,
  ): boolean => {
    const done = typeof encoding === 'function' ? encoding : cb;
    const text =
      typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(typeof encoding === 'string' ? encoding : 'utf8');
    const out = redactor.push(text);
    if (out === '') {
      if (done !== undefined) queueMicrotask(() => done(null));
      return true;
    }
    return done === undefined ? realWrite(out) : realWrite(out, done);
  };
  const proxy = new Proxy(stream, {
    get(target, prop) {
      if (prop === 'write') return hooked ?? write;
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      return (value as (...a: unknown[]) => unknown).bind(DRAWS_THROUGH_WRITE.has(prop) ? proxy : target);
    },
    set(target, prop, value: unknown) {
      if (prop === 'write') hooked = value;
      else Reflect.set(target, prop, value, target);
      return true;
    },
  });
  return {
    stream: proxy,
    end: () => {
      const rest = redactor.end();
      if (rest !== '') realWrite(rest);
    },
  };
}
