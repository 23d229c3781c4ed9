import { runSecrets, type Secrets } from '../secrets.js';
import type { IO } from './io.js';
import { stdoutFile } from './stdout-file.js';

type Tty = { isTTY?: boolean };

export interface Streams {
  stdout: NodeJS.WritableStream & Tty;
  stderr: NodeJS.WritableStream & Tty;
  stdin: NodeJS.ReadableStream & Tty;
}

export interface IOFlags {
  /** --no-color */
  noColor?: boolean;
  /** -q */
  quiet?: boolean;
  /** --verbose */
  verbose?: boolean;
  /** `color` of the config file: below the environment, above the terminal check. */
  configColor?: boolean;
  /** The run's secrets (default: knowing NSED_TOKEN of `env`, as a run's do from its start). */
  secrets?: Secrets;
}

/**
 * Whether stderr gets colour. An explicit --no-color wins; then FORCE_COLOR (as Node itself
 * ranks it above NO_COLOR); then NO_COLOR; then the config file's `color: false`; then whether
 * stderr is a terminal that is not dumb.
 */
export function colorEnabled(
  env: Readonly<Record<string, string | undefined>>,
  stderrIsTTY: boolean,
  flags: IOFlags = {},
): boolean {
  if (flags.noColor === true) return false;
  const force = env['FORCE_COLOR'];
  if (force === '0' || force === 'false') return false;
  if (force === '1' || force === '2' || force === '3' || force === 'true') return true;
  const noColor = env['NO_COLOR'];
  if (noColor !== undefined && noColor !== '') return false;
  if (flags.configColor === false) return false;
  return stderrIsTTY && env['TERM'] !== 'dumb';
}

/** Which of the three streams is a terminal; by default read from each stream's own isTTY. */
export type TtyProbe = (which: keyof Streams) => boolean;

/**
 * The only place an IO is built from real streams; cli passes the process streams and env.
 * The streams are read on first use, not here: creating process.stdin or a piped stdout builds
 * a socket (a few ms each), and `sessions ls` never reads stdin. `isTTY` lets cli
 * answer the terminal questions from the file descriptors without creating the streams.
 */
export function createIO(
  streams: Streams,
  env: Readonly<Record<string, string | undefined>>,
  flags: IOFlags = {},
  isTTY: TtyProbe = (which) => streams[which].isTTY === true,
): IO {
  const stderrIsTTY = isTTY('stderr');
  let stdinIsTTY: boolean | undefined;
  return {
    get stdout() {
      return streams.stdout;
    },
    get stderr() {
      return streams.stderr;
    },
    get stdin() {
      return streams.stdin;
    },
    stdoutIsTTY: isTTY('stdout'),
    stderrIsTTY,
    get stdinIsTTY() {
      return (stdinIsTTY ??= isTTY('stdin'));
    },
    color: colorEnabled(env, stderrIsTTY, flags),
    quiet: flags.quiet === true,
    verbose: flags.verbose === true,
    dumb: env['TERM'] === 'dumb',
    secrets: flags.secrets ?? runSecrets(env),
    // Asked only by the step outputs: reading it creates process.stdout.
    get stdoutFile() {
      return stdoutFile(streams.stdout);
    },
  };
}
