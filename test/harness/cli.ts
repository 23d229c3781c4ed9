// The CLI in-process: the real runCli frame (parse, command, error report, exit code) over
// memory streams, with the context a test injects. This file is the only one that knows how
// runCli is called, so a change to its signature is adapted here alone.
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli } from '../../src/cli/run-cli.js';
import type { Clock, ContextParts, ProcessContext } from '../../src/run/context.js';
import { ExitCode } from '../../src/errors.js';
import { Capture, settle } from '../terminal/memory-io.js';
import { WAIT_MS } from './limits.js';

export type { Clock } from '../../src/run/context.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The whole environment the command sees (nothing is inherited from the test process). */
  env?: Record<string, string | undefined>;
  /**
   * Written to stdin, which then ends. Without it (and without `openStdin`) stdin is a pipe that
   * is already at its end: a question given as words then goes on at once, instead of waiting the
   * CLI's first-byte time for context that will never come.
   */
  stdin?: string;
  /**
   * stdin stays open and silent, like a pipe nobody writes to, until the test writes to or ends
   * `run.stdin` itself. Only a test of that case should pay the CLI's first-byte wait.
   */
  openStdin?: boolean;
  /** stdout and stderr claim to be a terminal. */
  tty?: boolean;
  columns?: number;
  clock?: Clock;
  randomHex?: (bytes: number) => string;
  /** The Context's store or connection, in the test's hands instead of opened from the environment. */
  parts?: ContextParts;
}

/** A command running in-process: its live output, a way to interrupt it, and its result. */
export interface CliRun {
  stdout: Capture;
  stderr: Capture;
  stdin: PassThrough;
  /** What a signal does to the real process: abort the context's signal with this exit code. */
  interrupt(exitCode?: number): void;
  /** Resolves once stdout+stderr so far satisfy `predicate`. */
  output(predicate: (out: string) => boolean, timeoutMs?: number): Promise<void>;
  result: Promise<CliResult>;
}

export const realClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) => sleep(ms, undefined, signal === undefined ? undefined : { signal }),
};

/**
 * A clock whose sleeps end at once (the reconnect back-off, a Retry-After) and are remembered,
 * so a test checks how long the CLI chose to wait without waiting it.
 */
export function instantClock(now: () => Date = () => new Date()): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    now,
    sleep: (ms, signal) => {
      sleeps.push(ms);
      return signal?.aborted === true ? Promise.reject(signal.reason as Error) : Promise.resolve();
    },
  };
}

export function startCli(args: string[], opts: CliOptions = {}): CliRun {
  const stdout = new Capture(opts.tty === true);
  const stderr = new Capture(opts.tty === true);
  if (opts.columns !== undefined) stdout.columns = opts.columns;
  const stdin = new PassThrough();
  if (opts.stdin !== undefined) stdin.end(opts.stdin);
  else if (opts.openStdin !== true) stdin.end();
  const controller = new AbortController();
  let signalExit: number | undefined;
  const base: ProcessContext = {
    env: opts.env ?? { NO_COLOR: '1' },
    clock: opts.clock ?? realClock,
    signal: controller.signal,
    signalExit: () => signalExit,
    randomHex: opts.randomHex ?? ((bytes) => randomBytes(bytes).toString('hex')),
  };
  const result = runCli(args, base, { stdout, stderr, stdin }, opts.parts).then(async (code) => {
    await settle();
    return { code, stdout: stdout.text, stderr: stderr.text };
  });
  return {
    stdout,
    stderr,
    stdin,
    interrupt: (exitCode = ExitCode.interrupted) => {
      signalExit ??= exitCode;
      controller.abort(new Error(`signal ${exitCode}`));
    },
    output: (predicate, timeoutMs = WAIT_MS) => waitForCapture([stdout, stderr], predicate, timeoutMs),
    result,
  };
}

export function runCliInProcess(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return startCli(args, opts).result;
}

function waitForCapture(streams: Capture[], predicate: (out: string) => boolean, timeoutMs: number): Promise<void> {
  const seen = (): string => streams.map((s) => s.text).join('');
  return new Promise<void>((resolve, reject) => {
    const offs: Array<() => void> = [];
    const done = (err?: Error): void => {
      clearTimeout(timer);
      for (const off of offs) off();
      if (err === undefined) resolve();
      else reject(err);
    };
    const timer = setTimeout(
      () => done(new Error(`timed out waiting for output; saw: ${seen().slice(-500)}`)),
      timeoutMs,
    );
    // A Capture stores each chunk in its own listener, registered first, so `seen` is current here.
    const check = (): void => {
      if (predicate(seen())) done();
    };
    for (const s of new Set(streams)) {
      s.on('data', check);
      offs.push(() => s.off('data', check));
    }
    check();
  });
}
