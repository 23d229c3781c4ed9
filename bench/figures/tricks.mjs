// Figure 10: what the start-up tricks buy, each an A/B in the same run, interleaved, on the
// bench's private copy of the CLI (docs/performance.md lists them):
// - the CommonJS fast entries (bin/nsed.cjs handing `sessions ls`, `--help` and a one-shot `ask`
//   to dist/fast.cjs, help.cjs and ask.cjs, which read argv with cli/prescan.ts instead of yargs)
//   against the same command through the full ES-module CLI, `node dist/main.js ...`;
// - V8's code cache of each fast entry (Node < 22.1; scripts/code-cache.cjs) against a copy of
//   the CLI without its .v8cache files. On Node >= 22.1 the module compile cache replaces it, and
//   this pair says so instead of a figure.
// Figure 10b (`tricks-built`): the tricks only a build can leave out (scripts/build.mjs, TRICKS),
// each a build without it against a build with every trick, both made here from the same source:
// - the stand-ins (undici's, string-width and the Node modules loaded on first call, the process
//   streams built on first use), all off at once: one build per stand-in would cost a build and
//   a series of runs each, for parts that each save a few ms, under the noise of one;
// - V8's Liftoff-only tiering of undici's WebAssembly parser, on a one-shot ask and on a long
//   answer;
// - the chunk template, and the events of a network read handed on one array, each on the
//   throughput figure's long answer.
import { cp, mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { figure } from '../lib/figure.mjs';
import { baseEnv, CLI, runNode, runNodeWithUsage, timeNode } from '../lib/proc.mjs';
import { interleave, median, round } from '../lib/stats.mjs';
import { buildVariant } from '../lib/variant-cli.mjs';

const ROUNDS = 10;
const PROMPT = 'What is the answer?';
const hasCompileCache = (() => {
  const [major, minor] = process.versions.node.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 1);
})();

export const TRICK_NAMES = {
  fastLs: 'trick: fast entry, sessions ls (empty store) / the full CLI',
  fastHelp: 'trick: fast entry, --help / the full CLI',
  fastAsk: 'trick: fast entry, one-shot ask -o final / the full CLI',
  cacheLs: 'trick: V8 code cache, sessions ls (empty store) / without it',
  cacheAsk: 'trick: V8 code cache, one-shot ask -o final / without it',
  standInsAsk: 'trick: stand-ins, one-shot ask -o final / without them',
  standInsLs: 'trick: stand-ins, sessions ls (empty store) / without them',
  liftoffAsk: 'trick: Liftoff-only WebAssembly, one-shot ask -o final / without it',
  liftoffFinal: 'trick: Liftoff-only WebAssembly, throughput ask -o final (CPU) / without it',
  templateFinal: 'trick: chunk template, throughput ask -o final (CPU) / without it',
  batchesFinal: 'trick: one array per network read, throughput ask -o final (CPU) / one event per await',
};

export async function tricks({ tmp, server }) {
  // Two stores: the asks record their sessions, and `sessions ls` is timed on an empty one.
  const env = baseEnv({ NSED_HOME: await mkdtemp(path.join(tmp, 'tricks-home-')) });
  const lsEnv = baseEnv({ NSED_HOME: await mkdtemp(path.join(tmp, 'tricks-empty-')) });
  const cliHome = path.dirname(path.dirname(CLI));
  const main = path.join(cliHome, 'dist', 'main.js');
  const bare = path.join(tmp, 'cli-no-code-cache');
  await cp(cliHome, bare, { recursive: true, filter: (src) => !src.endsWith('.v8cache') });
  const bareCli = path.join(bare, 'bin', 'nsed.cjs');
  const ask = ['ask', '-q', '-o', 'final', '--url', server.url, PROMPT];
  // Both ends print the same bytes, or the pair compares different work.
  for (const args of [['sessions', 'ls'], ['--help'], ask]) {
    const e = args === ask ? env : lsEnv;
    const [a, b] = [
      await runNode([CLI, ...args], { env: e, keep: true }),
      await runNode([main, ...args], { env: e, keep: true }),
    ];
    if (a.stdout !== b.stdout) throw new Error(`nsed ${args[0]}: the fast entry and the full CLI print different text`);
  }
  const variants = {
    fastLs: timeNode([CLI, 'sessions', 'ls'], { env: lsEnv }),
    mainLs: timeNode([main, 'sessions', 'ls'], { env: lsEnv }),
    fastHelp: timeNode([CLI, '--help'], { env: lsEnv }),
    mainHelp: timeNode([main, '--help'], { env: lsEnv }),
    fastAsk: timeNode([CLI, ...ask], { env }),
    mainAsk: timeNode([main, ...ask], { env }),
  };
  if (!hasCompileCache) {
    variants.bareLs = timeNode([bareCli, 'sessions', 'ls'], { env: lsEnv });
    variants.bareAsk = timeNode([bareCli, ...ask], { env });
  }
  const s = await interleave(variants, ROUNDS, { warmup: 1 });
  const pair = (name, nsed, floor, floorName) => figure({ name, floorName, nsed, floor, unit: 'ms' });
  const out = [
    pair(TRICK_NAMES.fastLs, s.fastLs, s.mainLs, 'node dist/main.js sessions ls'),
    pair(TRICK_NAMES.fastHelp, s.fastHelp, s.mainHelp, 'node dist/main.js --help'),
    pair(TRICK_NAMES.fastAsk, s.fastAsk, s.mainAsk, 'node dist/main.js ask -o final'),
  ];
  if (hasCompileCache) {
    const why = `Node ${process.version} has module.enableCompileCache; the code cache is not used`;
    out.push({ name: TRICK_NAMES.cacheLs, skipped: why }, { name: TRICK_NAMES.cacheAsk, skipped: why });
  } else
    out.push(
      pair(TRICK_NAMES.cacheLs, s.fastLs, s.bareLs, 'the same CLI without its .v8cache files'),
      pair(TRICK_NAMES.cacheAsk, s.fastAsk, s.bareAsk, 'the same CLI without its .v8cache files'),
    );
  return out;
}

const THROUGHPUT_ROUNDS = 6;
const CHUNKS = 200_000;
const CHARS = 8;

/** Figure 10b: each build-time trick against a build without it, interleaved (see the top of the file). */
export async function builtTricks({ tmp, server }) {
  const env = baseEnv({ NSED_HOME: await mkdtemp(path.join(tmp, 'built-home-')) });
  const lsEnv = baseEnv({ NSED_HOME: await mkdtemp(path.join(tmp, 'built-empty-')) });
  // One at a time: two builds at once on a small machine only wait for each other.
  const cli = {};
  for (const [name, without] of [
    ['all', []],
    ['no-stand-ins', ['stand-ins']],
    ['no-wasm-tiering', ['wasm-tiering']],
    ['no-chunk-template', ['chunk-template']],
    ['no-read-batches', ['read-batches']],
  ])
    cli[name] = await buildVariant(tmp, name, without);
  const ask = ['ask', '-q', '-o', 'final', '--url', server.url, PROMPT];
  const long = ['ask', '-q', '-o', 'final', '--url', `${server.url}/bulk/${CHUNKS}/${CHARS}`, 'Stream a long answer'];
  const answer = `${'x'.repeat(CHUNKS * CHARS)}\n`;
  // Every build prints the same bytes, or a pair compares different work.
  const same = async (args, e, builds) => {
    const outs = await Promise.all(
      builds.map(async (b) => (await runNode([cli[b], ...args], { env: e, keep: true })).stdout),
    );
    if (outs.some((o) => o !== outs[0])) throw new Error(`nsed ${args[0]}: ${builds.join(', ')} print different text`);
  };
  await same(ask, env, ['all', 'no-stand-ins', 'no-wasm-tiering']);
  await same(['sessions', 'ls'], lsEnv, ['all', 'no-stand-ins']);
  // A long answer is timed by the CPU it costs nsed (user + system), its wall time noted beside:
  // what these tricks save is CPU, and on a loaded two-core machine a wall time of seconds is
  // mostly the wait for a core (bench/RESULTS.md, round 20: the wall-time ratios swung across 1).
  const wall = { all: [], template: [], batches: [], liftoff: [] };
  const longRun = (b, key) => async () => {
    const { ms, stdout, usage } = await runNodeWithUsage([cli[b], ...long], { env, tmp, keep: true });
    if (stdout !== answer) throw new Error(`${b} printed ${stdout.length} characters, not the ${answer.length} sent`);
    wall[key].push(ms);
    return usage.user_ms + usage.system_ms;
  };
  const start = await interleave(
    {
      allAsk: timeNode([cli.all, ...ask], { env }),
      standInsAsk: timeNode([cli['no-stand-ins'], ...ask], { env }),
      liftoffAsk: timeNode([cli['no-wasm-tiering'], ...ask], { env }),
      allLs: timeNode([cli.all, 'sessions', 'ls'], { env: lsEnv }),
      standInsLs: timeNode([cli['no-stand-ins'], 'sessions', 'ls'], { env: lsEnv }),
    },
    ROUNDS,
    { warmup: 1 },
  );
  const stream = await interleave(
    {
      all: longRun('all', 'all'),
      template: longRun('no-chunk-template', 'template'),
      batches: longRun('no-read-batches', 'batches'),
      liftoff: longRun('no-wasm-tiering', 'liftoff'),
    },
    THROUGHPUT_ROUNDS,
    { warmup: 0 },
  );
  const pair = (name, nsed, floor, floorName) => figure({ name, floorName, nsed, floor, unit: 'ms' });
  const cpu = (name, key, floorName) =>
    figure({
      name,
      floorName,
      nsed: stream.all,
      floor: stream[key],
      unit: 'ms',
      note: `CPU time; wall time ${round(median(wall.all), 0)} / ${round(median(wall[key]), 0)} ms`,
      extra: { measure: 'user + system CPU time', wall_ms: { nsed: wall.all, floor: wall[key] } },
    });
  return [
    pair(TRICK_NAMES.standInsAsk, start.allAsk, start.standInsAsk, 'a build without the stand-ins'),
    pair(TRICK_NAMES.standInsLs, start.allLs, start.standInsLs, 'a build without the stand-ins'),
    pair(TRICK_NAMES.liftoffAsk, start.allAsk, start.liftoffAsk, "a build with V8's default WebAssembly tiering"),
    cpu(TRICK_NAMES.liftoffFinal, 'liftoff', "a build with V8's default WebAssembly tiering"),
    cpu(TRICK_NAMES.templateFinal, 'template', 'a build that parses every chunk in full'),
    cpu(TRICK_NAMES.batchesFinal, 'batches', 'a build that hands on each event by itself'),
  ];
}
