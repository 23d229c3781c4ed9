import type { IO } from './terminal/io.js';

export interface Clock {
  now(): Date;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Everything a command needs from the outside world, built once by cli/main.ts. Tests build
 * their own instead of mocking modules.
 */
export interface Context {
  io: IO;
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  /** Aborts on SIGINT/SIGTERM/SIGHUP; `signalExit` then says which exit code that means. */
  signal: AbortSignal;
  signalExit(): number | undefined;
  randomHex(bytes: number): string;
}
