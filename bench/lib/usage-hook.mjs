// Preloaded with --import (and --expose-gc) into the batch runs: records this process's CPU time,
// peak RSS and page faults (each a fresh page: bench/lib/host-speed.mjs) in the file
// BENCH_USAGE_FILE names, on every way out, process.exit() included.
// The live heap after a full collection says whether anything was kept per item; the peak RSS
// alone cannot tell that from a collector that simply let the heap grow.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    globalThis.gc?.();
    const record = {
      user_ms: usage.userCPUTime / 1000,
      system_ms: usage.systemCPUTime / 1000,
      maxrss_kib: usage.maxRSS,
      minor_faults: usage.minorPageFault,
      heap_after_gc_bytes: globalThis.gc ? process.memoryUsage().heapUsed : null,
    };
    writeFileSync(file, `${JSON.stringify(record)}\n`);
  });
}
