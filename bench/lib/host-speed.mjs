// How fast this host runs a fixed piece of JavaScript right now, printed beside the load and the
// file-create time. The 2-core machines the figures run on are virtual: with nothing else
// running in them, the same loop took 1,370 ms in one minute and 2,430 ms a few minutes later
// (bench/RESULTS.md round 8). Ratios against a floor timed in the same seconds mostly cancel
// that; the figures with a fixed target (the batch's CPU per item, the first event's fsync) do
// not, so a run says how fast its host was at its start and at its end.

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
