// Preloaded with --import where GNU time is missing: records this process's peak RSS (KiB) in
// the file BENCH_MAXRSS_FILE names, on every way out, process.exit() included.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_MAXRSS_FILE;
if (file) {
  process.on('exit', () => {
    writeFileSync(file, `${process.resourceUsage().maxRSS}\n`);
  });
}
