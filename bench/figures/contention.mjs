// Figure 7: 16 processes each append 50 turns to one session through the real store. The floor
// is the same 800 appends made by one process: what the lock and the waiting cost.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { figure } from '../lib/figure.mjs';
import { baseEnv } from '../lib/proc.mjs';
import { interleave, quantile, round } from '../lib/stats.mjs';
import { session } from '../store/sessions.mjs';

const ROUNDS = 3;
const WRITERS = 16;
const EACH = 50;
const TOTAL = WRITERS * EACH;
const WORKER = fileURLToPath(new URL('../store/append-worker.mjs', import.meta.url));

function startWorker(bundle, home, id, count, tag) {
  const child = spawn(process.execPath, [WORKER, bundle, home, id, String(count), tag], {
    env: baseEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d.toString()));
  const ready = new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d.toString();
      if (out.startsWith('ready\n')) resolve();
    });
    child.on('exit', (code) =>
      reject(new Error(`append worker exited ${code} before it was ready: ${err.slice(0, 300)}`)),
    );
  });
  const done = new Promise((resolve, reject) => {
    child.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out.slice('ready\n'.length)).waits)
        : reject(new Error(`append worker exited ${code}: ${err.slice(0, 300)}`)),
    );
  });
  ready.catch(() => undefined);
  return { child, ready, done };
}

/** One run: `writers` processes append `each` turns; returns turns/s and every lock wait. */
async function run(ctx, writers, each, record) {
  const { openFileStore } = ctx.mod;
  const home = await mkdtemp(path.join(ctx.tmp, 'contention-home-'));
  try {
    const store = openFileStore(home);
    const s = session(7, 2);
    await store.create(s);
    const workers = Array.from({ length: writers }, (_, w) => startWorker(ctx.bundle, home, s.id, each, `w${w}`));
    await Promise.all(workers.map((w) => w.ready));
    // Timed from the moment every writer is loaded and waiting, so process start is not in it.
    const started = performance.now();
    for (const w of workers) w.child.stdin.end('go\n');
    const waits = (await Promise.all(workers.map((w) => w.done))).flat();
    const seconds = (performance.now() - started) / 1000;
    const after = await store.read(s.id);
    const ids = new Set(after.turns.map((t) => t.id));
    record.lost += writers * each + s.turns.length - ids.size;
    record.waits.push(...waits);
    return (writers * each) / seconds;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

export async function contention({ tmp, store }) {
  const mod = await store();
  const ctx = { tmp, mod, bundle: mod.bundle };
  const contended = { lost: 0, waits: [] };
  const alone = { lost: 0, waits: [] };
  const s = await interleave(
    { nsed: () => run(ctx, WRITERS, EACH, contended), floor: () => run(ctx, 1, TOTAL, alone) },
    ROUNDS,
    { warmup: 0 },
  );
  const p95 = round(quantile(contended.waits, 0.95), 1);
  return [
    figure({
      name: `store contention, ${WRITERS} processes × ${EACH} turns (turns/s, higher is better)`,
      floorName: `one process appending ${TOTAL} turns`,
      nsed: s.nsed,
      floor: s.floor,
      unit: 'turns/s',
      target: { text: 'lost turns = 0', ok: () => contended.lost === 0 && alone.lost === 0 },
      extra: {
        lost_turns: contended.lost,
        lost_turns_single_process: alone.lost,
        lock_wait_p50_ms: round(quantile(contended.waits, 0.5), 1),
        lock_wait_p95_ms: p95,
        lock_wait_max_ms: round(quantile(contended.waits, 1), 1),
        single_process_wait_p95_ms: round(quantile(alone.waits, 0.95), 2),
      },
      note: `lost turns ${contended.lost}, lock wait p95 ${p95} ms`,
    }),
  ];
}
