// Figure 5: peak RSS of `ask -o final` as one fixed-size answer arrives in ever more chunks.
// The answer is the same 1,000,000 characters each time, so any growth is per-chunk cost.
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { figure } from '../lib/figure.mjs';
import { baseEnv, CLI, peakRssKib, peakRssMethod } from '../lib/proc.mjs';
import { interleave, median, round } from '../lib/stats.mjs';

const ROUNDS = 3;
const ANSWER = 1_000_000;
const COUNTS = [10_000, 100_000, 1_000_000];
const UNDICI = fileURLToPath(new URL('../floors/undici-client.mjs', import.meta.url));
const FLOOR = 'undici + eventsource-parser loop holding the answer';
const label = (n) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1_000}k`);
const chunksName = (n) => `memory ask -o final, ${label(n)} chunks of a 1 MB answer`;
const growthName = (from, to) => `memory growth ${label(from)} → ${label(to)} chunks`;
/** The names this figure prints. */
export const MEMORY_NAMES = [...COUNTS.map(chunksName), growthName(COUNTS[1], COUNTS[2])];

export async function memory({ tmp, server }) {
  const env = baseEnv({ NSED_HOME: await mkdtemp(path.join(tmp, 'memory-home-')) });
  const variants = {};
  for (const n of COUNTS) {
    const url = `${server.url}/fixed/${n}/${ANSWER}`;
    variants[`nsed${n}`] = async () =>
      (await peakRssKib([CLI, 'ask', '-q', '-o', 'final', '--url', url, 'q'], { env, tmp })) / 1024;
    variants[`floor${n}`] = async () => (await peakRssKib([UNDICI, url, 'final'], { env, tmp })) / 1024;
  }
  const s = await interleave(variants, ROUNDS, { warmup: 0 });
  const method = await peakRssMethod(tmp);
  const out = COUNTS.map((n) =>
    figure({
      name: chunksName(n),
      floorName: FLOOR,
      nsed: s[`nsed${n}`],
      floor: s[`floor${n}`],
      unit: 'MiB',
      extra: { peak_rss_via: method },
    }),
  );
  const [, mid, top] = COUNTS;
  const floorGrowth = median(s[`floor${top}`]) / median(s[`floor${mid}`]);
  out.push(
    figure({
      name: growthName(mid, top),
      floorName: `nsed itself at ${label(mid)} chunks`,
      nsed: s[`nsed${top}`],
      floor: s[`nsed${mid}`],
      unit: 'MiB',
      // No more than the floor client grows over the same range (the floor's own growth is the bar).
      target: { text: `≤ the floor client's ${round(floorGrowth, 2)}`, ok: (r) => r <= floorGrowth },
      extra: { floor_client_growth: round(floorGrowth, 3), peak_rss_via: method },
      note: `the undici floor client grows ${round(floorGrowth, 2)}× over the same range`,
    }),
  );
  return out;
}
