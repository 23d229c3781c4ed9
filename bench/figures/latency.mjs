// Figure 6: the delay from the server writing an event to the client writing it to stdout.
// The server puts CLOCK_MONOTONIC (shared by every process on the machine) into each chunk's
// content; this process, which does nothing else meanwhile, stamps each line as it comes out
// of the client's stdout pipe. The pipe hop is in every sample, nsed's and the floor's alike.
import { mkdtemp, open, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { figure } from '../lib/figure.mjs';
import { baseEnv, CLI, runNode } from '../lib/proc.mjs';
import { interleave, median, quantile, round } from '../lib/stats.mjs';

const ROUNDS = 5;
const EVENTS = 300;
const GAP_MS = 3;
const UNDICI = fileURLToPath(new URL('../floors/undici-client.mjs', import.meta.url));
const FLOOR = 'undici + eventsource-parser loop writing each piece';
// The first events of a run meet whatever the client still does once the stream has begun
// (nsed writes its pending-job marker then); the steady figures leave them out.
const SETTLE = 20;
const FSYNCS = 9;
// A first event is one sample per run, and on the shared machine one run's spreads over 3-15 ms:
// five runs could not tell 2 ms apart (bench/RESULTS.md, round 3). Short runs add samples of it.
const FIRST_ROUNDS = 15;
const FIRST_EVENTS = 3;

/** The median cost of writing a small file and fsyncing it, in this run's temp dir: the unit for the first event. */
async function oneFsync(dir) {
  const out = [];
  for (let i = 0; i < FSYNCS; i++) {
    const file = path.join(dir, `fsync-${i}.json`);
    const t0 = process.hrtime.bigint();
    const handle = await open(file, 'wx', 0o600);
    await handle.writeFile(`${JSON.stringify({ i, pad: 'x'.repeat(600) })}\n`);
    await handle.sync();
    await handle.close();
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
    await rm(file);
  }
  return median(out);
}

/** Runs one client and returns the delay of every stamped event, in ms. */
async function delays(args, env, ndjson, events = EVENTS) {
  const out = [];
  let pending = '';
  const onStdout = (bytes) => {
    const now = process.hrtime.bigint();
    const lines = (pending + bytes.toString('utf8')).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      let stamp = line;
      if (ndjson) {
        const e = JSON.parse(line);
        if (e.type !== 'text') continue;
        stamp = e.text.trim();
      }
      if (/^\d+$/.test(stamp)) out.push(Number(now - BigInt(stamp)) / 1e6);
    }
  };
  await runNode(args, { env, onStdout });
  if (out.length !== events) throw new Error(`saw ${out.length} of ${events} stamped events`);
  return out;
}

export async function latency({ tmp, server }) {
  const home = await mkdtemp(path.join(tmp, 'latency-home-'));
  const env = baseEnv({ NSED_HOME: home });
  const url = `${server.url}/stamp/${EVENTS}/${GAP_MS}`;
  const pooled = { text: [], ndjson: [], floor: [] };
  const steady = { text: [], ndjson: [], floor: [] };
  const first = { text: [], ndjson: [], floor: [] };
  const rest = { text: [], ndjson: [], floor: [] };
  const run = (name, args, ndjson) => async () => {
    const d = await delays(args, env, ndjson);
    pooled[name].push(...d);
    steady[name].push(...d.slice(SETTLE));
    first[name].push(d[0]);
    rest[name].push(...d.slice(1));
    return 0;
  };
  await interleave(
    {
      text: run('text', [CLI, 'ask', '-q', '-o', 'text', '--url', url, 'q'], false),
      ndjson: run('ndjson', [CLI, 'ask', '-q', '-o', 'ndjson', '--url', url, 'q'], true),
      floor: run('floor', [UNDICI, url, 'stream'], false),
    },
    ROUNDS,
    { warmup: 0 },
  );
  const short = `${server.url}/stamp/${FIRST_EVENTS}/${GAP_MS}`;
  const firstOnly = (name, args, ndjson) => async () => {
    first[name].push((await delays(args, env, ndjson, FIRST_EVENTS))[0]);
    return 0;
  };
  await interleave(
    {
      text: firstOnly('text', [CLI, 'ask', '-q', '-o', 'text', '--url', short, 'q'], false),
      ndjson: firstOnly('ndjson', [CLI, 'ask', '-q', '-o', 'ndjson', '--url', short, 'q'], true),
      floor: firstOnly('floor', [UNDICI, short, 'stream'], false),
    },
    FIRST_ROUNDS,
    { warmup: 0 },
  );
  const stat = (q) => (samples) => [q === 0.5 ? median(samples) : quantile(samples, q)];
  const ms = (samples, q) => round(stat(q)(samples)[0], 3);
  const out = [];
  for (const mode of ['text', 'ndjson']) {
    for (const [label, q] of [
      ['median', 0.5],
      ['p99', 0.99],
    ]) {
      const nsed = stat(q)(pooled[mode]);
      const floor = stat(q)(pooled.floor);
      const added = (nsed[0] ?? 0) - (floor[0] ?? 0);
      const target = label === 'median' ? { text: 'nsed median < 1 ms', ok: (_r, n) => n < 1 } : undefined;
      out.push(
        figure({
          name: `latency -o ${mode} ${label}`,
          floorName: FLOOR,
          nsed,
          floor,
          unit: 'ms',
          runs: ROUNDS,
          target,
          extra: {
            events_per_run: EVENTS,
            gap_ms: GAP_MS,
            added_ms: round(added, 3),
            [`nsed_${label}_after_first_${SETTLE}_events_ms`]: ms(steady[mode], q),
            [`floor_${label}_after_first_${SETTLE}_events_ms`]: ms(steady.floor, q),
          },
          note: `after the first ${SETTLE} events of each run: ${ms(steady[mode], q)} / ${ms(steady.floor, q)} ms`,
        }),
      );
    }
  }
  // The two targets: every event after the first within 3 ms at p99, and the first
  // event (which waits for the durable pending-job marker) at most one fsync behind the floor's.
  const fsyncMs = await oneFsync(home);
  for (const mode of ['text', 'ndjson']) {
    out.push(
      figure({
        name: `latency -o ${mode} p99 after the first event`,
        floorName: FLOOR,
        nsed: stat(0.99)(rest[mode]),
        floor: stat(0.99)(rest.floor),
        unit: 'ms',
        runs: ROUNDS,
        target: { text: 'nsed p99 ≤ 3 ms', ok: (_r, n) => n <= 3 },
        extra: { events_per_run: EVENTS - 1, gap_ms: GAP_MS },
      }),
    );
    const added = median(first[mode]) - median(first.floor);
    out.push(
      figure({
        name: `latency -o ${mode} first event`,
        floorName: FLOOR,
        nsed: first[mode],
        floor: first.floor,
        unit: 'ms',
        runs: ROUNDS + FIRST_ROUNDS,
        target: {
          text: `nsed − floor ≤ one fsync (${round(fsyncMs, 3)} ms)`,
          ok: (_r, n, fl) => n - fl <= fsyncMs,
        },
        extra: { added_ms: round(added, 3), fsync_ms: round(fsyncMs, 3) },
        note: `${round(added, 2)} ms later than the floor's first event; one fsync ${round(fsyncMs, 2)} ms`,
      }),
    );
  }
  return out;
}
