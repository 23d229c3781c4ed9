// The only module that touches `process`: argv, environment, streams, signals, exit code.
import type * as Crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ProcessContext } from '../context.js';
import { ExitCode } from '../errors.js';

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

// node:crypto (with webcrypto) costs 15-25 ms to load; only commands that mint ids need it, and
// that is after start-up, so it is required on first use.
const load = createRequire(import.meta.url);
const { runCli } = await import('./run-cli.js');
const ctx: ProcessContext = {
  env: process.env,
  clock: {
    now: () => new Date(),
    sleep: (ms, signal) => sleep(ms, undefined, signal === undefined ? undefined : { signal }),
  },
  signal: controller.signal,
  signalExit: () => signalExit,
  randomHex: (bytes) => (load('node:crypto') as typeof Crypto).randomBytes(bytes).toString('hex'),
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
