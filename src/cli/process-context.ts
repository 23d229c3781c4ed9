// What the process gives a run, shared by the entries (cli/main.ts, cli/fast.ts,
// cli/fast-help.ts): the environment, the clock, the signals, the streams, and how a finished run
// exits. Only cli/ touches `process`. Node modules a run may never need (timers/promises, tty)
// are fetched on first use; ids come from session/random-hex.ts, without node:crypto.
import type * as Timers from 'node:timers/promises';
import { setMaxListeners } from 'node:events';
import { fstatSync, statSync, type Stats } from 'node:fs';
import type * as Tty from 'node:tty';
import type { Clock, ProcessContext } from '../run/context.js';
import { fdStdout } from '../terminal/fd-stdout.js';
import { ExitCode } from '../errors.js';
import { randomHex } from '../session/index.js';

/** The wall clock, and sleeps on Node's timers. */
export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    (process.getBuiltinModule('node:timers/promises') as typeof Timers).setTimeout(
      ms,
      undefined,
      signal === undefined ? undefined : { signal },
    ),
};

/** Installs the signal handlers and returns the run's ProcessContext. Call once, first. */
export function processContext(): ProcessContext {
  const controller = new AbortController();
  // Every running request listens on the one interrupt and lets go when it ends; a batch at
  // -j 16 holds sixteen at once, which is no leak (Node warns past ten).
  setMaxListeners(0, controller.signal);
  let signalExit: number | undefined;
  const onSignal = (code: number) => () => {
    if (signalExit !== undefined && code === ExitCode.interrupted) {
      // A second Ctrl-C while the first is being handled forces the exit: the user means it.
      process.exit(code);
    }
    signalExit ??= code;
    controller.abort(new Error(`signal ${code}`));
  };
  process.on('SIGINT', onSignal(ExitCode.interrupted));
  process.on('SIGTERM', onSignal(ExitCode.terminated));
  process.on('SIGHUP', onSignal(ExitCode.sighup));
  return {
    env: process.env,
    clock: systemClock,
    signal: controller.signal,
    signalExit: () => signalExit,
    // Ids without loading node:crypto (15-25 ms) where the kernel's generator can be read (session/random-hex.ts).
    randomHex,
  };
}

/** Ends the run with `code` once its output is flushed. */
export function finish(code: number): void {
  process.exitCode = code;
  // Once nothing is left to run (every write flushed, every handle closed), exit then rather than
  // let Node free the heap and the environment piece by piece first, which a finished command does
  // not need: 1.5 ms of a one-shot ask's exit.
  process.once('beforeExit', () => process.exit());
  // Whatever still holds the event loop (a pooled socket, a stdin handle) must not keep a
  // finished command alive in a CI job; unref'd, so a clean exit is not delayed.
  setTimeout(() => process.exit(code), 1500).unref();
}

/**
 * The process streams, each created on first use: a piped stdout or stderr is a socket that
 * costs a few ms to build, and a run that prints nothing there needs none.
 */
export const processStreams = {
  get stdout(): NodeJS.WriteStream {
    return process.stdout;
  },
  get stderr(): NodeJS.WriteStream {
    return process.stderr;
  },
  get stdin(): NodeJS.ReadableStream {
    // node:stream only when it is needed: `sessions ls` and `show` never read stdin, and loading
    // it cost each ~1.5 ms.
    stdin ??= nullDevice(0) ? process.getBuiltinModule('node:stream').Readable.from([]) : process.stdin;
    return stdin;
  },
};
let stdin: NodeJS.ReadableStream | undefined;

/**
 * Whether a file descriptor is /dev/null, which shell loops, xargs, cron and CI hand a command as
 * its stdin. Read through process.stdin, it is a file stream that loads its module and reads
 * through the thread pool (3-4 ms of CPU in a one-shot ask) to learn what is
 * known at once: there is nothing in it. Any other device or file is read as it is.
 */
function nullDevice(fd: number): boolean {
  if (process.platform === 'win32') return false;
  try {
    const s = fstatSync(fd);
    return s.isCharacterDevice() && isNull(s);
  } catch {
    return false;
  }
}

/** A character device's stat is /dev/null's: the device number names the device, also where /dev of a container is another mount. */
const isNull = (s: Stats): boolean => s.rdev === statSync('/dev/null').rdev;

const FD = { stdin: 0, stdout: 1, stderr: 2 } as const;

/**
 * Whether a process stream is a terminal, asked of its file descriptor so that the stream need
 * not exist. The same test Node makes for `isTTY`: only a character device can be a terminal, and
 * node:tty (which loads node:net) is needed only to tell a terminal from another device.
 */
export function isTTY(which: keyof typeof FD): boolean {
  if (process.platform === 'win32') return process[which].isTTY === true;
  const fd = FD[which];
  try {
    const s = fstatSync(fd);
    // /dev/null (cron, a script's `> /dev/null`) is the character device most often met here, and
    // never a terminal: told without node:tty, which brings node:net and node:stream (~2 ms).
    if (!s.isCharacterDevice() || isNull(s)) return false;
  } catch {
    return false;
  }
  return (process.getBuiltinModule('node:tty') as typeof Tty).isatty(fd);
}

/**
 * Stdout for a command that prints its output in one go: a terminal gets the tty stream; a pipe
 * or a file gets its descriptor, written directly (terminal/fd-stdout.ts), without the socket
 * Node would build for it.
 */
export function directStdout(): NodeJS.WritableStream {
  return isTTY('stdout') ? processStreams.stdout : fdStdout(1, () => processStreams.stdout);
}
