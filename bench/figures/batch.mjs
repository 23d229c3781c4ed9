// Figure 8: many deliberations from one command (docs/ci.md "Many deliberations from one file").
// `nsed batch` at -j 16 against `nsed sim` with a short round time, against the simulator's own
// time for the same jobs run back to back in this process ÷ 16 (what a client that cost
// nothing would take); its CPU per item and its peak RSS at 1,000 items against 100; and the
// same items through `xargs -P16 nsed ask` and promptfoo's `openai:chat` provider, interleaved.
// Two reference rows without targets, in the same rounds: the 1,000 items through a bare client
// (bench/floors/batch-client.mjs: undici, each answer streamed and its /details read, nothing
// recorded), the least this host takes with the simulator on the same cores; and `nsed batch
// --no-save`, whose difference to the full batch is what the store costs.
// The default run compares the three clients on 100 items and times the floor on the first 100
// jobs (every job has the same phases, so it scales); `npm run bench -- batch` does all of it
// on 1,000.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { atMost, below, figure } from '../lib/figure.mjs';
import { batchPrompts, checkBatchLines, checkPromptfooOutput } from '../lib/batch-check.mjs';
import { baseEnv, CLI, runNodeWithUsage, runProcess } from '../lib/proc.mjs';
import { ensurePromptfoo, promptfooEnv, promptfooVersion, writeEval } from '../lib/promptfoo.mjs';
import { backToBack, startSimProcess } from '../lib/sim.mjs';
import { interleave, median, round } from '../lib/stats.mjs';

const JOBS = 16;
// Short, yet long enough that 16 jobs in flight outlast what a client may spend on one item
// (CPU_BUDGET_MS): a fast-policy job is three phases, ~75 ms, so the ideal batch of 1,000 is
// ~4.7 s, and a client within that budget can keep up with it.
const ROUND_MS = 25;
const POLICY = 'fast';
const MODEL = `nsed:${POLICY}`;
const ITEMS = 1_000;
const SMALL = 100;
const ROUNDS = 2;
const PROBE = 5;
/** An item's CPU budget before the batch was held to the bare client (docs/performance.md, "Figures against their own floors"): now a reference row. */
const CPU_BUDGET_MS = 5;
const RUN_TIMEOUT_MS = 20 * 60_000;
const n = (count) => count.toLocaleString('en');
const BARE_CLIENT = fileURLToPath(new URL('../floors/batch-client.mjs', import.meta.url));

/** Runs `fn(url)` against a fresh `nsed sim`, so no run meets the jobs another one left behind. */
async function withSim(fn) {
  const sim = await startSimProcess(['--round-ms', String(ROUND_MS)]);
  try {
    return await fn(sim.url);
  } finally {
    await sim.close();
  }
}

export async function batch({ tmp, full = false }) {
  const dir = await mkdtemp(path.join(tmp, 'batch-'));
  const compared = full ? ITEMS : SMALL;
  const floorItems = full ? ITEMS : SMALL;
  const prompts = batchPrompts(ITEMS);
  const itemsFile = async (count) => {
    const file = path.join(dir, `items-${count}.txt`);
    await writeFile(file, prompts.slice(0, count).join('\n') + '\n');
    return file;
  };
  const files = { [ITEMS]: await itemsFile(ITEMS), [SMALL]: await itemsFile(SMALL), [PROBE]: await itemsFile(PROBE) };
  // Each run's store stays until the figure ends: removing a thousand session files frees their
  // inodes, and ext4 without a journal (these machines) then steps over each freed inode at every
  // create in its block group for a minute or more, so the next run would pay for the last one's
  // clean-up (bench/RESULTS.md round 8). The figure runs before the store-contention figure, whose
  // thousands of rewrites free inodes the same way.
  const fresh = (name) => mkdtemp(path.join(dir, `${name}-`));
  const usage = { [ITEMS]: [], [SMALL]: [], noSave: [], bare: [] };

  /**
   * One timed Node process against a fresh simulator: `args(url)` its arguments, `check` what it
   * printed; `record` the key its CPU and memory are kept under (undefined, as for a probe: not kept).
   */
  const timedNode = (args, { env = baseEnv(), check, record }) =>
    withSim(async (url) => {
      const run = await runNodeWithUsage(args(url), { env, tmp: dir, keep: true, timeoutMs: RUN_TIMEOUT_MS });
      check(run.stdout);
      if (record !== undefined) usage[record].push(run.usage);
      return run.ms;
    });

  const runBatch = async (count, record, extra = []) =>
    timedNode((url) => [CLI, 'batch', files[count], '-j', String(JOBS), '-p', POLICY, '--url', url, ...extra], {
      env: baseEnv({ NSED_HOME: await fresh('batch-home') }),
      check: (stdout) => checkBatchLines(stdout, count),
      record,
    });

  const runBare = (count, record) =>
    timedNode((url) => [BARE_CLIENT, url, MODEL, String(JOBS), files[count]], {
      check: (stdout) => {
        if (Number(stdout.trim()) !== count)
          throw new Error(`the bare batch client answered ${stdout.trim() || 'nothing'} of ${count} items`);
      },
      record,
    });

  // xargs exits 123 when any of its `nsed ask` runs failed, which runProcess reports.
  const runXargs = (count) =>
    withSim(async (url) => {
      const home = await fresh('xargs-home');
      const args = ['-d', '\n', '-P', String(JOBS), '-n', '1', process.execPath, CLI, 'ask', '-q', '-o', 'final'];
      const run = await runProcess('xargs', [...args, '-p', POLICY, '--url', url], {
        env: baseEnv({ NSED_HOME: home }),
        stdinFile: files[count],
        timeoutMs: RUN_TIMEOUT_MS,
        what: `xargs -P${JOBS} nsed ask`,
      });
      if (run.bytes === 0) throw new Error('xargs -P nsed ask printed no answers');
      return run.ms;
    });

  let promptfoo;
  let promptfooMissing;
  try {
    promptfoo = await ensurePromptfoo((line) => console.log(`  ${line}`));
  } catch (err) {
    promptfooMissing = `promptfoo could not be installed: ${err instanceof Error ? err.message : String(err)}`;
  }
  const runPromptfoo = (count) =>
    withSim(async (url) => {
      const evalDir = await fresh('promptfoo');
      const config = await writeEval(evalDir, { url, model: MODEL, prompts: prompts.slice(0, count) });
      const out = path.join(evalDir, 'out.json');
      const run = await runProcess(
        promptfoo.node,
        [
          promptfoo.main,
          'eval',
          '-c',
          config,
          '-j',
          String(JOBS),
          '--no-cache',
          '--no-progress-bar',
          '--no-table',
          '-o',
          out,
        ],
        { env: promptfooEnv(path.join(evalDir, 'config')), timeoutMs: RUN_TIMEOUT_MS, what: 'promptfoo eval' },
      );
      checkPromptfooOutput(await readFile(out, 'utf8'), count);
      await rm(evalDir, { recursive: true, force: true });
      return run.ms;
    });

  // One small run of each client first: it checks that each does the work, and loads each
  // from disk once before anything is timed (promptfoo is 1.5 GB of node_modules).
  await runBatch(PROBE);
  await runBare(PROBE);
  await runXargs(PROBE);
  if (promptfoo !== undefined) {
    try {
      await runPromptfoo(PROBE);
    } catch (err) {
      promptfooMissing = `promptfoo did not run: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  const canPromptfoo = promptfooMissing === undefined;

  const floorPrompts = prompts.slice(0, floorItems);
  const variants = {
    floor: async () =>
      ((await backToBack(dir, floorPrompts, { roundMs: ROUND_MS, model: MODEL })) * (ITEMS / floorItems)) / JOBS,
    batch: () => runBatch(ITEMS, ITEMS),
    batchSmall: () => runBatch(SMALL, SMALL),
    noSave: () => runBatch(ITEMS, 'noSave', ['--no-save']),
    bare: () => runBare(ITEMS, 'bare'),
    xargs: () => runXargs(compared),
  };
  if (canPromptfoo) variants.promptfoo = () => runPromptfoo(compared);
  const s = await interleave(variants, ROUNDS, { warmup: 0 });

  const cpuPerItem = (key, count = key) => usage[key].map((u) => (u.user_ms + u.system_ms) / count);
  // The system part moves with the file system's state (freed inodes, bench/lib/create-cost.mjs)
  // and the user part with the host's speed (bench/lib/host-speed.mjs): each is given apart.
  const partPerItem = (part, key = ITEMS) => round(median(usage[key].map((u) => u[part] / ITEMS)), 2);
  const cpuText = (key) =>
    `${round(median(cpuPerItem(key, ITEMS)), 2)} ms CPU per item (${partPerItem('user_ms', key)} + ${partPerItem('system_ms', key)})`;
  // What the batch's CPU beyond the bare client's is made of: its store (the full batch against
  // --no-save) and the rest of nsed's item (--no-save against the bare client).
  const cpuMedian = (key) => median(cpuPerItem(key, ITEMS));
  const storeShare = round(cpuMedian(ITEMS) - cpuMedian('noSave'), 2);
  const itemShare = round(cpuMedian('noSave') - cpuMedian('bare'), 2);
  const mib = (count, key) => usage[count].map((u) => u[key] / (key === 'maxrss_kib' ? 1024 : 1024 * 1024));
  const common = { jobs: JOBS, round_ms: ROUND_MS, policy: POLICY };
  const heapAt = (count) => round(median(mib(count, 'heap_after_gc_bytes')), 1);
  const cpuSmall = round(median(cpuPerItem(SMALL)), 2);
  const faultsPerItem = round(median(usage[ITEMS].map((u) => u.minor_faults / ITEMS)), 1);
  const floorName = `the same jobs back to back in-process ÷ ${JOBS}${floorItems === ITEMS ? '' : `, timed on the first ${n(floorItems)}`}`;
  const out = [
    figure({
      name: `batch ${n(ITEMS)} items -j ${JOBS}, wall time`,
      floorName,
      nsed: s.batch,
      floor: s.floor,
      unit: 'ms',
      // No target here or on the CPU per item in ms: the batch is held to the bare client (the
      // rows "/ the bare client"), a floor that runs the same jobs on the same cores.
      extra: { ...common, items: ITEMS, floor_items_timed: floorItems },
      note: `--round-ms ${ROUND_MS}, -p ${POLICY}`,
    }),
    figure({
      name: `batch ${n(ITEMS)} items -j ${JOBS}, a bare client (no store, no verdict), wall time`,
      floorName,
      nsed: s.bare,
      floor: s.floor,
      unit: 'ms',
      extra: { ...common, items: ITEMS, client: 'bench/floors/batch-client.mjs' },
      note: `the least this host takes beside the simulator: undici, each answer streamed and its /details read; ${cpuText('bare')}`,
    }),
    figure({
      name: `batch ${n(ITEMS)} items -j ${JOBS} --no-save, wall time`,
      floorName,
      nsed: s.noSave,
      floor: s.floor,
      unit: 'ms',
      extra: { ...common, items: ITEMS },
      note: `nsed batch with its sessions in memory: the store's share is the difference to the full batch; ${cpuText('noSave')}`,
    }),
    figure({
      name: `batch client CPU per item, ${n(ITEMS)} items`,
      floorName: `${CPU_BUDGET_MS} ms per item, a reference`,
      nsed: cpuPerItem(ITEMS),
      floor: cpuPerItem(ITEMS).map(() => CPU_BUDGET_MS),
      unit: 'ms',
      extra: {
        ...common,
        cpu_per_item_at_100_ms: cpuSmall,
        user_ms_per_item: partPerItem('user_ms'),
        system_ms_per_item: partPerItem('system_ms'),
        page_faults_per_item: faultsPerItem,
        cpu_via: 'process.resourceUsage() at exit, user + system',
      },
      note: `user + system of the batch process (${partPerItem('user_ms')} + ${partPerItem('system_ms')} ms); ${cpuSmall} ms per item at ${SMALL} items; ${faultsPerItem} page faults per item`,
    }),
    figure({
      name: `batch ${n(ITEMS)} items -j ${JOBS} with its store / the bare client, wall time`,
      floorName: 'bench/floors/batch-client.mjs: undici, each answer streamed and its /details read, no store',
      nsed: s.batch,
      floor: s.bare,
      unit: 'ms',
      target: atMost(1.3),
      extra: { ...common, items: ITEMS },
    }),
    figure({
      name: `batch CPU per item / the bare client's, ${n(ITEMS)} items`,
      floorName: 'bench/floors/batch-client.mjs, user + system per item',
      nsed: cpuPerItem(ITEMS),
      floor: cpuPerItem('bare', ITEMS),
      unit: 'ms',
      target: atMost(1.5),
      extra: { ...common, items: ITEMS, store_share_ms: storeShare, rest_of_item_share_ms: itemShare },
      note: `beyond the bare client: the store ${storeShare} ms (the batch - --no-save), the rest of nsed's item ${itemShare} ms (--no-save - the bare client)`,
    }),
    figure({
      name: `batch peak RSS, ${n(ITEMS)} items / ${n(SMALL)} items`,
      floorName: `nsed batch itself at ${n(SMALL)} items`,
      nsed: mib(ITEMS, 'maxrss_kib'),
      floor: mib(SMALL, 'maxrss_kib'),
      unit: 'MiB',
      target: atMost(1.2),
      extra: { ...common, heap_after_gc_mib: { [ITEMS]: heapAt(ITEMS), [SMALL]: heapAt(SMALL) } },
      note: `live heap after a full collection at exit ${heapAt(ITEMS)} / ${heapAt(SMALL)} MiB`,
    }),
    figure({
      name: `batch vs xargs -P${JOBS} nsed ask, ${n(compared)} items`,
      floorName: `xargs -P${JOBS} nsed ask -o final, a process per item`,
      nsed: compared === ITEMS ? s.batch : s.batchSmall,
      floor: s.xargs,
      unit: 'ms',
      target: below(1),
      extra: { ...common, items: compared },
    }),
  ];
  const pfName = `batch vs promptfoo ${await promptfooVersion()} openai:chat, ${n(compared)} items`;
  out.push(
    canPromptfoo
      ? figure({
          name: pfName,
          floorName: `promptfoo eval -j ${JOBS}, the openai:chat provider at the simulator's /v1`,
          nsed: compared === ITEMS ? s.batch : s.batchSmall,
          floor: s.promptfoo,
          unit: 'ms',
          target: below(1),
          extra: { ...common, items: compared },
        })
      : { name: pfName, skipped: promptfooMissing },
  );
  await rm(dir, { recursive: true, force: true });
  return out;
}
