// `node bench/stream-ab.mjs [--rounds=R] [--only=throughput|memory] CLI_DIR...`: the stream figures
// (bench/figures/throughput.mjs, memory.mjs) through each given copy of the built CLI (a
// directory holding bin/nsed.cjs and dist/) and the undici floor, interleaved R rounds against
// one bench SSE server: `ask -o final` of 200,000 chunks (wall time, checked output) and peak
// RSS of a 1 MB answer in 100k and 1M chunks. How the before/after figures of a stream change
// were taken (bench/RESULTS.md); the load average is printed beside.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { baseEnv, peakRssKib, runNodeWithUsage } from './lib/proc.mjs';
import { startServer } from './lib/server.mjs';
import { interleave, median } from './lib/stats.mjs';

const opt = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const rounds = Number(opt('rounds', 6));
const only = opt('only', 'throughput,memory').split(',');
const clis = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const UNDICI = fileURLToPath(new URL('./floors/undici-client.mjs', import.meta.url));
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const tmp = await mkdtemp(path.join(os.tmpdir(), 'nsed-stream-ab-'));
const server = await startServer();
try {
  const env = baseEnv({ NSED_HOME: await mkdtemp(path.join(tmp, 'home-')) });
  const bin = (cli) => path.join(cli, 'bin', 'nsed.cjs');
  const report = (title, s, unit) => {
    const floor = median(s.floor);
    for (const [name, v] of Object.entries(s))
      console.log(
        `  ${name}: median ${median(v).toFixed(1)} ${unit} (${(median(v) / floor).toFixed(3)}× floor) [${v.map((x) => x.toFixed(0)).join(' ')}]`,
      );
  };
  if (only.includes('throughput')) {
    const url = `${server.url}/bulk/200000/8`;
    const expected = `${'x'.repeat(1_600_000)}\n`;
    // Wall time from spawn to exit, and the process's own CPU time (user + system), which a
    // loaded machine moves less than the wall time.
    const cpu = {};
    const timed = (args, name) => async () => {
      const { ms, stdout, usage } = await runNodeWithUsage(args, { env, keep: true, tmp });
      if (stdout !== expected) throw new Error(`${args[0]} printed ${stdout.length} characters`);
      (cpu[name] ??= []).push(usage.user_ms + usage.system_ms);
      return ms;
    };
    const variants = { floor: timed([UNDICI, url, 'final'], 'floor') };
    for (const c of clis) variants[c] = timed([bin(c), 'ask', '-q', '-o', 'final', '--url', url, 'q'], c);
    console.log(`throughput, 200,000 chunks, ${rounds} rounds; load ${load()}`);
    console.log(' wall time');
    report('throughput', await interleave(variants, rounds, { warmup: 1 }), 'ms');
    console.log(' CPU time (user + system), warm-up run included');
    report('cpu', cpu, 'ms');
    console.log(`  load after ${load()}`);
  }
  if (only.includes('memory')) {
    for (const n of [100_000, 1_000_000]) {
      const url = `${server.url}/fixed/${n}/1000000`;
      const variants = { floor: async () => (await peakRssKib([UNDICI, url, 'final'], { env, tmp })) / 1024 };
      for (const c of clis)
        variants[c] = async () =>
          (await peakRssKib([bin(c), 'ask', '-q', '-o', 'final', '--url', url, 'q'], { env, tmp })) / 1024;
      console.log(`peak RSS MiB, ${n} chunks of a 1 MB answer, ${rounds} rounds; load ${load()}`);
      const s = await interleave(variants, rounds, { warmup: 0 });
      report('memory', s, 'MiB');
      globalThis[`m${n}`] = s;
    }
    const a = globalThis.m100000;
    const b = globalThis.m1000000;
    for (const k of Object.keys(a))
      console.log(
        `  growth ${k}: ${(median(b[k]) / median(a[k])).toFixed(3)} (+${(median(b[k]) - median(a[k])).toFixed(1)} MiB)`,
      );
  }
} finally {
  await server.close();
  await rm(tmp, { recursive: true, force: true });
}
