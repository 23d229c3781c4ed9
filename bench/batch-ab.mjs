// `node bench/batch-ab.mjs [--items=N] [--rounds=R] [--out] [--no-save] CLI_DIR...`: `nsed batch` of N items at
// -j 16 through each given copy of the built CLI (a directory holding bin/nsed.cjs and dist/),
// interleaved R rounds, each run against a fresh `nsed sim --round-ms 25` and a fresh store, as
// the batch figure runs it; prints wall time, CPU per item and peak RSS of each run, and the
// simulator's own time for the same jobs ÷ 16 (timed on 100 jobs, scaled). How the before/after
// figures of a batch change were taken (bench/RESULTS.md); the load average is printed beside.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { batchPrompts, checkBatchLines } from './lib/batch-check.mjs';
import { baseEnv, runNodeWithUsage } from './lib/proc.mjs';
import { backToBack, startSimProcess } from './lib/sim.mjs';

const opt = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const items = opt('items', 1000);
const rounds = opt('rounds', 2);
const toFile = process.argv.includes('--out');
// --no-save: the client without its store, to see its own CPU apart from the disk's.
const noSave = process.argv.includes('--no-save');
const clis = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const tmp = await mkdtemp(path.join(os.tmpdir(), 'nsed-batch-ab-'));
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
try {
  const prompts = batchPrompts(items);
  const file = path.join(tmp, 'items.txt');
  await writeFile(file, `${prompts.join('\n')}\n`);
  const floorMs =
    ((await backToBack(tmp, prompts.slice(0, 100), { roundMs: 25, model: 'nsed:fast' })) * (items / 100)) / 16;
  console.log(`floor (simulator alone ÷ 16): ${(floorMs / 1000).toFixed(2)} s; load ${load()}`);
  for (let r = 0; r < rounds; r++) {
    for (const cli of r % 2 === 0 ? clis : [...clis].reverse()) {
      const sim = await startSimProcess(['--round-ms', '25']);
      const home = await mkdtemp(path.join(tmp, 'home-'));
      try {
        const out = path.join(home, 'out.ndjson');
        const args = [
          ...[path.join(cli, 'bin', 'nsed.cjs'), 'batch', file, '-j', '16', '-p', 'fast', '--url', sim.url],
          ...(noSave ? ['--no-save'] : []),
        ];
        const l0 = load();
        const run = await runNodeWithUsage(toFile ? [...args, '--out', out] : args, {
          env: baseEnv({ NSED_HOME: home }),
          tmp,
          keep: true,
          timeoutMs: 20 * 60_000,
        });
        if (!toFile) checkBatchLines(run.stdout, items);
        const u = run.usage;
        console.log(
          `${cli}: wall ${(run.ms / 1000).toFixed(2)} s (${(run.ms / floorMs).toFixed(2)}×), CPU ${((u.user_ms + u.system_ms) / items).toFixed(2)} ms/item (user ${(u.user_ms / items).toFixed(2)}, sys ${(u.system_ms / items).toFixed(2)}), RSS ${(u.maxrss_kib / 1024).toFixed(1)} MiB, heap ${(u.heap_after_gc_bytes / 1048576).toFixed(1)} MiB; load ${l0}`,
        );
      } finally {
        // The store stays until the end, as in the batch figure: removing a thousand session
        // files makes every create of the next run slow for minutes (bench/figures/batch.mjs).
        await sim.close();
      }
    }
  }
} finally {
  await rm(tmp, { recursive: true, force: true });
}
