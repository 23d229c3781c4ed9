import { constants as fsConstants, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { ExitCode, NsedError, notFound, usageError, type ExitCodeValue } from '../errors.js';

/**
 * The one way nsed reads a file a flag names (`-f`, `--schema`, `--gates`, `--tools`,
 * `--template`, `--vars`, `--token-file`, the batch file, `--tool-result`, `gate --from`,
 * `render FILE`) and standard input read to its end. The rule (docs/usage.md "Files nsed reads",
 * docs/reliability.md #170-#173):
 *
 * - the path is classified before it is opened (links followed): a regular file is read; a FIFO
 *   (a named pipe, or `<(command)`) is read as its writer writes, opened without blocking so a
 *   FIFO nobody writes to cannot hold the open; a directory, a socket, a block device and a
 *   character device (`/dev/zero`, `/dev/urandom`, a terminal, `/dev/null`) are refused (exit 2):
 *   a device's bytes need not end, and standard input is read with `-`, not its device;
 * - at most `maxBytes` + 1 bytes are read: one byte past the cap is refused (exit 2), whatever
 *   the file's size said when it was opened;
 * - the wait for bytes is bounded by --timeout (exit 124) and ends at SIGINT (130), SIGTERM (143)
 *   or SIGHUP (129);
 * - a missing path is exit 3 (not found), an unreadable one exit 2 naming the error.
 */
export interface ReadBounds {
  /** --timeout in seconds: the longest wait for a read to end. Undefined: no limit. */
  timeoutS?: number | undefined;
  /** What set `timeoutS`, as the timeout's message names it; `--timeout N s` when not said. */
  timeoutSaid?: string | undefined;
  /** Aborts on SIGINT, SIGTERM or SIGHUP. */
  signal?: AbortSignal | undefined;
  /** The exit code the signal that aborted means (130 when not said). */
  signalExit?: (() => number | undefined) | undefined;
  /** The run's clock (the Context's): --timeout and the wait notice are measured on it. */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

/** The cap on a settings file a flag names: a schema, gates, tools, a template, variables. */
export const MAX_FLAG_FILE_BYTES = 1024 * 1024;

/** What a run's bounds come from: the Context (its --timeout, its signal, its clock), described by shape. */
export interface BoundsSource {
  globals: { settings: { timeoutS: { value: number | undefined } } };
  signal: AbortSignal;
  signalExit(): number | undefined;
  clock: { now(): Date; sleep(ms: number, signal?: AbortSignal): Promise<void> };
  inputDeadline?: InputDeadline | undefined;
}

/**
 * A moment by which the run's reads of input must have ended, tighter than --timeout: an MCP
 * tool call's own `timeout_s`, so a FIFO nobody writes to cannot hold the call past it.
 */
export interface InputDeadline {
  /** Milliseconds since the epoch, on the run's clock. */
  at: number;
  /** What set it, for the timeout's message: `the tool call's timeout_s (5 s)`. */
  said: string;
}

/** The bounds of every read of input in a run: --timeout or the input deadline if sooner, the signals, the clock. */
export const boundsOf = (ctx: BoundsSource): ReadBounds => {
  const timeoutS = ctx.globals.settings.timeoutS.value;
  const deadline = ctx.inputDeadline;
  const left = deadline === undefined ? undefined : Math.max(0, deadline.at - ctx.clock.now().getTime()) / 1000;
  const sooner = left !== undefined && (timeoutS === undefined || left < timeoutS);
  return {
    timeoutS: sooner ? left : timeoutS,
    ...(sooner ? { timeoutSaid: deadline?.said } : {}),
    signal: ctx.signal,
    signalExit: () => ctx.signalExit(),
    sleep: (ms, signal) => ctx.clock.sleep(ms, signal),
  };
};

export interface ReadInputOptions extends ReadBounds {
  /** What names the file in messages: `-f`, `--schema`, `the batch file`. */
  label: string;
  /** The cap: a file longer than this is refused. */
  maxBytes: number;
  /** The hint when the file passes the cap. */
  overCapHint?: string | undefined;
  /** The hint when --timeout ends the wait. */
  timeoutHint?: string | undefined;
}

/** Told once, after `afterMs` without a byte, that nsed is still waiting (a forgotten pipe is not a hang). */
export interface WaitNotice {
  afterMs: number;
  say: () => void;
}

/** How a path is read, by what it is (see the rule above). */
export type InputKind = 'file' | 'fifo';

const CHUNK = 64 * 1024;
/** The pause between two reads of a FIFO whose writer has not written (or not opened it) yet. */
const FIFO_PAUSE_MS = 20;
const READ_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOCTTY ?? 0);
const errCode = (err: unknown): string => (err as NodeJS.ErrnoException | null)?.code ?? 'unreadable';
const realSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  sleep(ms, undefined, signal === undefined ? undefined : { signal });

/** The whole file as bytes, read by the rule. */
export async function readInputFile(path: string, opts: ReadInputOptions): Promise<Buffer> {
  return collect(inputChunks(path, opts));
}

/** The whole file as text (UTF-8). */
export async function readInputText(path: string, opts: ReadInputOptions): Promise<string> {
  return (await readInputFile(path, opts)).toString('utf8');
}

/** Standard input (or any stream) to its end by the same rule: capped, bounded by --timeout and the signals. */
export async function readStreamBytes(
  stream: NodeJS.ReadableStream,
  opts: ReadInputOptions & { onWait?: WaitNotice },
): Promise<Buffer> {
  return collect(boundedChunks(stream, opts));
}

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

/**
 * The limits of one read: every wait is raced against them. They end it with the signal
 * (interrupted, exit 130 or the signal's code) or at --timeout (exit 124), measured on the run's
 * clock; once given up on, `end` lets the timers go.
 */
interface Limits {
  race<T>(p: Promise<T>): Promise<T>;
  /** Resolves after `ms` on the run's clock, unless the read ends first. */
  after(ms: number): Promise<void>;
  end(): void;
}

function limits(opts: ReadInputOptions): Limits {
  if (opts.signal?.aborted === true) throw interrupted(opts);
  const clockSleep = opts.sleep ?? realSleep;
  const stop = new AbortController();
  let giveUp!: (err: NsedError) => void;
  const stopped = new Promise<never>((_, reject) => (giveUp = reject));
  stopped.catch(() => undefined);
  const onAbort = (): void => giveUp(interrupted(opts));
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.timeoutS !== undefined)
    clockSleep(Math.round(opts.timeoutS * 1000), stop.signal).then(
      () => giveUp(timedOut(opts)),
      () => undefined,
    );
  return {
    race: (p) => Promise.race([p, stopped]),
    after: (ms) => clockSleep(ms, stop.signal),
    end: () => {
      stop.abort();
      opts.signal?.removeEventListener('abort', onAbort);
    },
  };
}

const overCap = (opts: ReadInputOptions, capName = 'the cap per file'): NsedError => {
  const cap = opts.maxBytes >= 1024 * 1024 ? `${opts.maxBytes / 1024 / 1024} MiB` : `${opts.maxBytes / 1024} KiB`;
  return usageError(`${opts.label} is larger than ${cap}, ${capName}`, opts.overCapHint ?? 'name a smaller file');
};

const interrupted = (b: ReadInputOptions): NsedError =>
  new NsedError('interrupted', `interrupted while reading ${b.label}`, {
    exitCode: (b.signalExit?.() ?? ExitCode.interrupted) as ExitCodeValue,
  });

const timedOut = (b: ReadInputOptions): NsedError =>
  new NsedError('timeout', `nothing ended ${b.label} within ${b.timeoutSaid ?? `--timeout ${b.timeoutS} s`}`, {
    hint: b.timeoutHint ?? 'nsed was reading it: close the pipe, or name a regular file',
  });

/**
 * The bytes of a path, by the rule, as they arrive: `render FILE` streams them; the rest collect
 * them.
 */
export async function* inputChunks(path: string, opts: ReadInputOptions): AsyncGenerator<Buffer> {
  const what: ReadInputOptions = { ...opts, label: `${opts.label} ${path}` };
  const bound = limits(what);
  try {
    const kind = await bound.race(classify(path, opts.label));
    const handle = await bound.race(open(path, READ_FLAGS)).catch((err: unknown) => {
      throw openError(path, opts.label, err);
    });
    try {
      // Checked again on what was opened: the path may have been replaced since it was classified.
      const st = await handle.stat();
      if (kindOf(st) !== kind) throw refused(path, opts.label, st);
      if (kind === 'file' && st.size > opts.maxBytes) throw overCap(what);
      // At most cap + 1 bytes: one past the cap is enough to know, however the file grows.
      let left = opts.maxBytes + 1;
      let writerSeen = false;
      const buf = Buffer.alloc(CHUNK);
      for (;;) {
        let n: number;
        try {
          ({ bytesRead: n } = await bound.race(handle.read(buf, 0, Math.min(CHUNK, left), null)));
        } catch (err) {
          if (err instanceof NsedError) throw err;
          if (kind !== 'fifo' || errCode(err) !== 'EAGAIN') throw readError(path, opts.label, err);
          // A writer holds the FIFO open but has nothing to say yet.
          writerSeen = true;
          await bound.race(realSleep(FIFO_PAUSE_MS));
          continue;
        }
        if (n === 0) {
          // A FIFO reads as ended before any writer opened it: wait for one, within the limits.
          if (kind === 'fifo' && !writerSeen) {
            await bound.race(realSleep(FIFO_PAUSE_MS));
            continue;
          }
          return;
        }
        writerSeen = true;
        left -= n;
        if (left === 0) throw overCap(what);
        yield Buffer.from(buf.subarray(0, n));
      }
    } finally {
      await handle.close().catch(() => undefined);
    }
  } finally {
    bound.end();
  }
}

async function classify(path: string, label: string): Promise<InputKind> {
  let st: Stats;
  try {
    st = await stat(path);
  } catch (err) {
    throw openError(path, label, err);
  }
  const kind = kindOf(st);
  if (kind === undefined) throw refused(path, label, st);
  return kind;
}

const kindOf = (st: Stats): InputKind | undefined => (st.isFile() ? 'file' : st.isFIFO() ? 'fifo' : undefined);

function refused(path: string, label: string, st: Stats): NsedError {
  const what = st.isDirectory()
    ? 'a directory'
    : st.isCharacterDevice()
      ? 'a character device'
      : st.isBlockDevice()
        ? 'a block device'
        : st.isSocket()
          ? 'a socket'
          : 'not a regular file';
  const hint = st.isDirectory()
    ? label === '-f'
      ? `attach its files with a glob: -f '${path.replace(/\/$/, '')}/**/*'`
      : 'name a file'
    : st.isCharacterDevice()
      ? 'name a regular file or a pipe; for standard input use -'
      : 'name a regular file or a pipe';
  return usageError(`${label} ${path} is ${what}; nsed reads regular files and pipes`, hint);
}

/** A missing path is exit 3 for every flag (docs/reference.md "Exit codes"); any other failure to open it exit 2. */
function openError(path: string, label: string, err: unknown): NsedError {
  if (err instanceof NsedError) return err;
  const code = errCode(err);
  if (code === 'ENOENT' || code === 'ENOTDIR') return notFound(`${label} ${path}: no such file`, 'check the path');
  if (code === 'ELOOP') return usageError(`${label} ${path} is a loop of symbolic links`, 'name a regular file');
  return readError(path, label, err);
}

const readError = (path: string, label: string, err: unknown): NsedError =>
  usageError(`${label} ${path}: cannot read it (${errCode(err)})`, 'check the path and its permissions');

/**
 * A stream's chunks (standard input), each wait raced against the limits. A read given up on
 * lets the stream go (destroyed): nobody will read the rest, and an open handle must not keep
 * the process alive.
 */
export async function* boundedChunks(
  stream: NodeJS.ReadableStream,
  opts: ReadInputOptions & { onWait?: WaitNotice },
): AsyncGenerator<Buffer> {
  const bound = limits(opts);
  let arrived = false;
  const notice = opts.onWait;
  if (notice !== undefined)
    bound.after(notice.afterMs).then(
      () => {
        if (!arrived) notice.say();
      },
      () => undefined,
    );
  const it = (stream as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  let done = false;
  let total = 0;
  try {
    for (;;) {
      const next = await bound.race(it.next());
      if (next.done === true) {
        done = true;
        return;
      }
      arrived = true;
      const v = next.value;
      const chunk = typeof v === 'string' ? Buffer.from(v, 'utf8') : Buffer.from(v);
      total += chunk.length;
      if (total > opts.maxBytes) throw overCap(opts, 'the cap for it');
      yield chunk;
    }
  } finally {
    bound.end();
    if (!done) (stream as { destroy?: () => void }).destroy?.();
  }
}
