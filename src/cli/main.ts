// The only module that touches `process`: argv, environment, streams, signals, exit code.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ProcessContext } from '../context.js';
import { ExitCode } from '../errors.js';
import { randomHex } from '../session/random-hex.js';

// A lone `nsed --version` never gets here: bin/nsed.cjs answers it before this module loads.
const argv = process.argv.slice(2);
const controller = new AbortController();
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

const { runCli } = await import('./run-cli.js');
const ctx: ProcessContext = {
  env: process.env,
  clock: {
    now: () => new Date(),
    sleep: (ms, signal) => sleep(ms, undefined, signal === undefined ? undefined : { signal }),
  },
  signal: controller.signal,
  signalExit: () => signalExit,
  // Ids without loading node:crypto where the kernel's generator can be read (session/random-hex.ts).
  randomHex,
};
const streams = {
  stdout: process.stdout,
  stderr: process.stderr,
  // Lazy: touching process.stdin creates a handle, and stdin is read only when asked for.
  get stdin() {
    return process.stdin;
  },
};
const code = await runCli(argv, ctx, streams);
process.exitCode = code;
// Whatever still holds the event loop (a pooled socket, a stdin handle) must not keep a
// finished command alive in a CI job; unref'd, so a clean exit is not delayed.
setTimeout(() => process.exit(code), 1500).unref();
