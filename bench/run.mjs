// `npm run bench`: every figure is a ratio of nsed's median to a floor's median, measured side by
// side in this run on loopback. Targets are reported, never enforced. `--only=a,b` runs some
// figures and writes nothing; `npm run bench -- NAME...` too, at full size where a figure has
// one (batch: 1,000 items through every client). Temp stores live under os.tmpdir() and are
// removed at the end.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { batch } from './figures/batch.mjs';
import { contention } from './figures/contention.mjs';
import { continueMemory } from './figures/continue-memory.mjs';
import { latency } from './figures/latency.mjs';
import { listing } from './figures/listing.mjs';
import { memory } from './figures/memory.mjs';
import { oneShot } from './figures/one-shot.mjs';
import { spendCap } from './figures/spend-cap.mjs';
import { startup } from './figures/startup.mjs';
import { throughput } from './figures/throughput.mjs';
import { builtTricks, tricks } from './figures/tricks.mjs';
import { formatLine } from './lib/figure.mjs';
import { writeReport } from './lib/report.mjs';
import { startServer } from './lib/server.mjs';
import { snapshotCli } from './lib/snapshot-cli.mjs';
import { round } from './lib/stats.mjs';
import { bundleStore, loadStore } from './store/bundle-store.mjs';
import { createCost } from './lib/create-cost.mjs';
import { freshPageUs, hostLoopMs } from './lib/host-speed.mjs';

const FIGURES = {
  startup,
  tricks,
  'tricks-built': builtTricks,
  'one-shot': oneShot,
  'spend-cap': spendCap,
  listing,
  throughput,
  memory,
  'continue-memory': continueMemory,
  latency,
  // Before contention: see bench/figures/batch.mjs on freed inodes.
  batch,
  contention,
};

const named = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const only =
  named.length > 0
    ? named
    : process.argv
        .find((a) => a.startsWith('--only='))
        ?.slice('--only='.length)
        .split(',');
const unknown = (only ?? []).filter((n) => !(n in FIGURES));
if (unknown.length > 0) {
  console.error(`unknown figure ${unknown.join(', ')}; choose from ${Object.keys(FIGURES).join(', ')}`);
  process.exit(2);
}

const started = performance.now();
const tmp = await mkdtemp(path.join(os.tmpdir(), 'nsed-bench-'));
let server;
let cleaned = false;
const cleanup = async () => {
  if (cleaned) return;
  cleaned = true;
  await server?.close();
  await rm(tmp, { recursive: true, force: true });
};
process.on('SIGINT', () => {
  void cleanup().finally(() => process.exit(130));
});
try {
  await snapshotCli(tmp);
  server = await startServer();
} catch (err) {
  await cleanup();
  throw err;
}

let storeModule;
const ctx = {
  tmp,
  server,
  full: named.length > 0,
  // Bundled once, on first use, by the figures that drive the real store.
  store: () => (storeModule ??= bundleStore(tmp).then(async (bundle) => ({ ...(await loadStore(bundle)), bundle }))),
};

const loadavgStart = os.loadavg().map((l) => round(l, 2));
const createUs = createCost(tmp);
const loopMsStart = hostLoopMs();
const pageUs = freshPageUs();
console.log(
  `nsed bench · Node ${process.version} · NODE_EXTRA_CA_CERTS ${process.env.NODE_EXTRA_CA_CERTS ? 'set' : 'not set'} · load ${loadavgStart.join(' ')} · a file create ${createUs} µs · a fixed loop ${loopMsStart} ms · a fresh page ${pageUs} µs`,
);
const figures = [];
try {
  for (const [id, fn] of Object.entries(FIGURES)) {
    if (only && !only.includes(id)) continue;
    const t = performance.now();
    let results;
    try {
      results = await fn(ctx);
    } catch (err) {
      results = [{ name: id, error: err instanceof Error ? err.message : String(err) }];
    }
    for (const f of results) {
      figures.push(f);
      console.log(f.error ? `${f.name}: error: ${f.error}` : formatLine(f));
    }
    console.log(`  (${id}: ${((performance.now() - t) / 1000).toFixed(1)} s)`);
  }
} finally {
  await cleanup();
}

const wall = round((performance.now() - started) / 1000, 1);
const loopMsEnd = hostLoopMs();
const missed = figures.filter((f) => f.target && !f.target.ok).map((f) => f.name);
console.log(
  `wall time ${wall} s; the fixed loop ${loopMsEnd} ms at the end; targets missed: ${missed.length === 0 ? 'none' : missed.join('; ')}`,
);
if (!only) {
  await writeReport({
    date: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    node_extra_ca_certs: Boolean(process.env.NODE_EXTRA_CA_CERTS),
    loadavg_start: loadavgStart,
    create_us_start: createUs,
    loop_ms_start: loopMsStart,
    fresh_page_us_start: pageUs,
    loop_ms_end: loopMsEnd,
    loadavg_end: os.loadavg().map((l) => round(l, 2)),
    wall_s: wall,
    figures,
  });
  console.log('wrote bench/results.json and the figures in bench/RESULTS.md');
}
