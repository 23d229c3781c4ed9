import type { IO } from './io.js';

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

/** The only place an IO is built from real streams; cli passes the process streams and env. */
export function createIO(streams: Streams, env: Readonly<Record<string, string | undefined>>, flags: IOFlags = {}): IO {
  const stderrIsTTY = streams.stderr.isTTY === true;
  return {
    stdout: streams.stdout,
    stderr: streams.stderr,
    stdin: streams.stdin,
    stdoutIsTTY: streams.stdout.isTTY === true,
    stderrIsTTY,
    stdinIsTTY: streams.stdin.isTTY === true,
    color: colorEnabled(env, stderrIsTTY, flags),
    quiet: flags.quiet === true,
    verbose: flags.verbose === true,
    dumb: env['TERM'] === 'dumb',
  };
}
