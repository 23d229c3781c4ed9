import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { EngineProfile } from '../run/context.js';

/**
 * Many turns in flight in one process (a batch), and one turn whose answer streams in many events,
 * allocate much as they stream and record, little of it living past the event or the turn. Left
 * alone, V8 doubles its young generation up to 32 MiB and lets the old one grow between full
 * collections by up to 4× what they kept. With the young generation stopped at 8 MiB and the old
 * one grown by 30 % a collection, both use less memory for the same time:
 * - a batch (live heap ~12 MiB): on Node 20 79 instead of 86 MiB at 100 items, 87 instead of
 *   116-143 at 1,000; at 1,000 items on Node 22 99-100 instead of 124-136 MiB, on Node 24 111-114
 *   instead of 209-218, on Node 26 127-135 instead of 163-176 (bench/RESULTS.md, round 15);
 * - a 1 MB answer in a million chunks: 75-77 instead of 106-108 MiB, in the same time.
 * V8 14 (Node 26) grows its young generation in steps of its own as well, so there it stops
 * between 8 and 16 MiB. Smaller costs CPU: stopped at V8's first 2 MiB, a batch made 630
 * scavenges instead of 48, for 10 % more user time.
 */
const STREAMING: HeapTuning = { youngGenerationBytes: 8 * 1024 * 1024, heapGrowingPercent: 30 };

/** What each engine profile (ProcessContext.tuneEngine) does to V8's heap. */
export const ENGINE_PROFILES: Readonly<Record<EngineProfile, HeapTuning>> = {
  'many-turns': STREAMING,
  'long-stream': STREAMING,
};

export interface HeapTuning {
  /** The young generation (V8's `new_space`, both halves) stops growing once it is this large. */
  youngGenerationBytes: number;
  /** Each full collection lets the old generation grow to (1 + this / 100) × what it kept. */
  heapGrowingPercent: number;
}

/** One of V8's heap spaces, as node:v8 reports it. */
export interface HeapSpace {
  space_name: string;
  space_size: number;
}

/**
 * The V8 flags to set now that the heap's spaces are as `spaces` say, or none yet. A running
 * process may set V8's growth flags but not the young generation's size (a command-line flag), so
 * the size is a growth factor of 1 set once the young generation reaches it.
 */
export function heapFlagsDue(tuning: HeapTuning, spaces: readonly HeapSpace[]): readonly string[] {
  const young = spaces.find((s) => s.space_name === 'new_space');
  if (young === undefined || young.space_size < tuning.youngGenerationBytes) return [];
  return ['--semi-space-growth-factor=1', `--heap-growing-percent=${tuning.heapGrowingPercent}`];
}

/** Whether this process was tuned already: its engine has one profile, the first asked for. */
let tuned = false;

/**
 * Tunes this process's heap for the rest of its life: now, or after the first garbage collection
 * that leaves heapFlagsDue with something to set. A young generation that never grows that large
 * (a short batch) is left as V8 sized it. Only the first call does anything.
 *
 * Any V8 flag set changes the hash V8 keeps beside compiled code, and Node >= 22.1's compile
 * cache refuses, and rewrites, the cache of each module compiled after it (seen on Node 22:
 * processes under different flags rewrite each other's entries). So a command tunes the engine
 * once what it runs is loaded (src/batch/run-batch.ts).
 */
export function tuneEngine(profile: EngineProfile): void {
  if (tuned) return;
  tuned = true;
  const tuning = ENGINE_PROFILES[profile];
  const apply = (): boolean => {
    const flags = heapFlagsDue(tuning, getHeapSpaceStatistics());
    if (flags.length === 0) return false;
    for (const flag of flags) setFlagsFromString(flag);
    collectFully();
    return true;
  };
  if (apply()) return;
  // The global, so that the full CLI's other commands leave node:perf_hooks unloaded.
  const observer = new PerformanceObserver(() => {
    if (apply()) observer.disconnect();
  });
  observer.observe({ entryTypes: ['gc'] });
}

/**
 * One full collection, now. V8 sets the old generation's next limit at each full collection, up to
 * 4× what that one kept, and keeps it until the next: without this, the limit set at start-up
 * under V8's own growth held for the whole batch in one run of four to every run, whose peak
 * was then a tenth higher. The inspector's
 * HeapProfiler.collectGarbage is no substitute: it runs later, and closing its session cancels it.
 * A context made once `--expose-gc` is set has `gc` as a global; this process's own has not.
 */
function collectFully(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
