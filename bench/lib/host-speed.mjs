// How fast this host runs a fixed piece of JavaScript right now, printed beside the load and the
// file-create time. The 2-core machines the figures run on are virtual: with nothing else
// running in them, the same loop took 1,370 ms in one minute and 2,430 ms a few minutes later
// (bench/RESULTS.md round 8). Ratios against a floor timed in the same seconds mostly cancel
// that; the figures with a fixed target (the batch's CPU per item, the first event's fsync) do
// not, so a run says how fast its host was at its start and at its end. It also says what a
// fresh page of memory costs the process that first writes to it: 15-19 µs per 4 KiB page on
// these machines, so each MiB a command touches beyond what its floor touches costs it ~4-5 ms
// (bench/RESULTS.md, round 14).

import { execFileSync } from 'node:child_process';

const ITERATIONS = 2e8;
const TRIES = 3;

/** The fastest of three runs of a fixed 2×10⁸-step loop, in milliseconds (about 170 ms on a quick host). */
export function hostLoopMs() {
  let best = Infinity;
  let sink = 0;
  for (let t = 0; t < TRIES; t++) {
    const started = performance.now();
    let x = 0;
    for (let i = 0; i < ITERATIONS; i++) x += i;
    best = Math.min(best, performance.now() - started);
    sink += x;
  }
  // The sum is used, so the loop cannot be optimised away.
  if (!Number.isFinite(sink)) throw new Error('the host-speed loop overflowed');
  return Math.round(best);
}

const FRESH_PAGES = 4096;
// A new process's first large buffer is mapped for it alone (glibc maps anything over 128 KiB on
// its own until one such block is freed), so every page it touches is fresh.
const TOUCH = `const b = Buffer.allocUnsafeSlow(${FRESH_PAGES} * 4096); const t = performance.now();
for (let i = 0; i < b.length; i += 4096) b[i] = 1;
process.stdout.write(String(((performance.now() - t) * 1000) / ${FRESH_PAGES}));`;

/**
 * What a page of memory costs the process that first writes to it, in microseconds: the least of
 * three new processes that each touch every 4 KiB page of a new 16 MiB buffer once.
 */
export function freshPageUs() {
  let best = Infinity;
  for (let t = 0; t < TRIES; t++)
    best = Math.min(best, Number(execFileSync(process.execPath, ['-e', TOUCH], { encoding: 'utf8' })));
  return Math.round(best * 10) / 10;
}
