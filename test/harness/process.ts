// The CLI as a real process, for what only a process shows: the bin, signals, exit codes,
// stdin, pipes, two processes at once. Everything else runs in-process (./cli.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { inject } from 'vitest';
import { WAIT_MS } from './limits.js';

/** The bin of this test run's build (test/global-setup.ts): what a user's shell runs. */
export const CLI = inject('cliBin');
/** The dist/ folder of that build: the bundle and the CommonJS entries. */
export const DIST = inject('cliDist');

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** What stdin gives: this text, a pipe left open, or /dev/null (as xargs, cron and `< /dev/null` give it). */
  stdin?: string | 'inherit-open' | 'null-device';
  /** A file descriptor stdout is written to, as a shell's `> FILE` gives it (the result's stdout is then empty). */
  stdout?: number;
  /** A backstop against a hung process, never a measure of speed. */
  timeoutMs?: number;
  /** The Node binary that runs the CLI (another Node version); default: this test's own. */
  node?: string;
}

export type CliProcess = ChildProcess & { result: Promise<RunResult> };

/** Spawns the built CLI with a clean environment (no proxies, no inherited NSED_*). */
export function spawnCli(args: string[], opts: RunOptions = {}): CliProcess {
  const base: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'SYSTEMROOT']) {
    const v = process.env[k];
    if (v !== undefined) base[k] = v;
  }
  const env: Record<string, string> = { ...base };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const child = spawn(opts.node ?? process.execPath, [CLI, ...args], {
    env,
    stdio: [opts.stdin === 'null-device' ? 'ignore' : 'pipe', opts.stdout ?? 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  if (opts.stdin === undefined) child.stdin?.end();
  else if (opts.stdin !== 'inherit-open') child.stdin?.end(opts.stdin);
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? WAIT_MS);
  const result = new Promise<RunResult>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return Object.assign(child, { result });
}

/**
 * A program run to its end with exactly `env`, in `cwd`: its exit code and its stdout and stderr as
 * one log, in the order they came. WAIT_MS only stops a program that hangs.
 */
export async function runProcess(
  command: string,
  args: readonly string[],
  opts: { env: Record<string, string>; cwd?: string },
): Promise<{ code: number | null; log: string }> {
  const child = spawn(command, args, {
    env: opts.env,
    ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
  });
  let log = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (log += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (log += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, log };
}

/** A Node script (the Action's action/*.mjs) run as a runner runs a step (runProcess). */
export const runScript = (
  file: string,
  opts: { env: Record<string, string>; cwd?: string },
): Promise<{ code: number | null; log: string }> => runProcess(process.execPath, [file], opts);

/** Resolves once `predicate(stdout+stderr so far)` holds, reading the child's output as it comes. */
export async function waitForOutput(
  child: ChildProcess,
  predicate: (out: string) => boolean,
  timeoutMs = WAIT_MS,
): Promise<void> {
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for output; saw: ${seen.slice(-500)}`)),
      timeoutMs,
    );
    const check = (d: Buffer | string) => {
      seen += d.toString();
      if (predicate(seen)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
  });
}
