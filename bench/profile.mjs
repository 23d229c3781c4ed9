// `node bench/profile.mjs SCENARIO [--top=N] [--from=MS] [--to=MS] [--timeline=MS] [--items=N] [--save=PATH]`: runs the
// built CLI once under --cpu-prof against the bench server (the batch scenarios: against `nsed sim`
// as the batch figures run it, N items, default 1,000) and prints the heaviest frames, self and
// inclusive. This is how the notes in bench/RESULTS.md on missed targets were made.
import { copyFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { batchPrompts } from './lib/batch-check.mjs';
import { summarize, timeline } from './lib/cpu-profile.mjs';
import { baseEnv, CLI, runNode } from './lib/proc.mjs';
import { startServer } from './lib/server.mjs';
import { startSimProcess } from './lib/sim.mjs';
import { bundleStore, loadStore } from './store/bundle-store.mjs';
import { generateLongSession, generateStore } from './store/generate.mjs';

const floor = (name) => fileURLToPath(new URL(`./floors/${name}-client.mjs`, import.meta.url));
const ask = (mode, url) => [CLI, 'ask', '-q', '-o', mode, '--url', url, 'q'];
const SCENARIOS = {
  version: () => [CLI, '--version'],
  help: () => [CLI, '--help'],
  'one-shot': (url) => ask('final', url),
  'one-shot-floor': (url) => [floor('http'), url, 'final'],
  'throughput-final': (url) => ask('final', `${url}/bulk/200000/8`),
  'throughput-ndjson': (url) => ask('ndjson', `${url}/bulk/200000/8`),
  'throughput-text': (url) => ask('text', `${url}/bulk/200000/8`),
  'throughput-undici-floor': (url) => [floor('undici'), `${url}/bulk/200000/8`, 'final'],
  'throughput-http-floor': (url) => [floor('http'), `${url}/bulk/200000/8`, 'final'],
  'memory-1m': (url) => ask('final', `${url}/fixed/1000000/1000000`),
  'memory-1m-floor': (url) => [floor('undici'), `${url}/fixed/1000000/1000000`, 'final'],
  'latency-text': (url) => ask('text', `${url}/stamp/300/3`),
  'sessions-ls': () => [CLI, 'sessions', 'ls'],
  'sessions-ls-empty': () => [CLI, 'sessions', 'ls'],
  'sessions-show': (_url, longId) => [CLI, 'sessions', 'show', longId],
  'sessions-show-old': (_url, longId) => [CLI, 'sessions', 'show', longId],
  batch: (_url, _longId, sim) => [CLI, 'batch', sim.items, '-j', '16', '-p', 'fast', '--url', sim.url],
  'batch-no-save': (_url, _longId, sim) => [
    CLI,
    'batch',
    sim.items,
    '-j',
    '16',
    '-p',
    'fast',
    '--no-save',
    '--url',
    sim.url,
  ],
};

const [scenario] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const opt = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
if (!scenario || !(scenario in SCENARIOS)) {
  console.error(
    `usage: node bench/profile.mjs ${Object.keys(SCENARIOS).join('|')} [--top=N] [--from=MS] [--to=MS] [--timeline=MS] [--items=N] [--save=PATH]`,
  );
  process.exit(2);
}

const tmp = await mkdtemp(path.join(os.tmpdir(), 'nsed-profile-'));
const server = await startServer();
// The batch figures' simulator and items (bench/figures/batch.mjs).
const sim = scenario.startsWith('batch') ? await startSimProcess(['--round-ms', '25']) : undefined;
try {
  const items = path.join(tmp, 'items.txt');
  if (sim) await writeFile(items, `${batchPrompts(opt('items', 1000)).join('\n')}\n`);
  const home = path.join(tmp, 'home');
  let longId = '';
  if (scenario.startsWith('sessions-') && scenario !== 'sessions-ls-empty') {
    // The same stores the listing figures run on.
    const bundle = await loadStore(await bundleStore(tmp));
    if (scenario === 'sessions-ls') await generateStore(bundle, home, 10_000);
    else longId = await generateLongSession(bundle, home, 1_000, { verdicts: scenario !== 'sessions-show-old' });
  }
  const args = [
    '--cpu-prof',
    `--cpu-prof-dir=${tmp}`,
    '--cpu-prof-interval=100',
    ...SCENARIOS[scenario](server.url, longId, { url: sim?.url, items }),
  ];
  const { ms } = await runNode(args, { env: baseEnv({ NSED_HOME: home }), timeoutMs: 10 * 60_000 });
  const [file] = (await readdir(tmp)).filter((f) => f.endsWith('.cpuprofile'));
  // --save=PATH keeps the profile, for a look at callers or in Chrome's DevTools.
  const save = process.argv.find((a) => a.startsWith('--save='))?.slice('--save='.length);
  if (save) await copyFile(path.join(tmp, file), save);
  const { totalMs, self, inclusive } = await summarize(path.join(tmp, file), {
    fromMs: opt('from', 0),
    toMs: opt('to', Infinity),
  });
  const top = opt('top', 20);
  const show = (rows) =>
    rows
      .slice(0, top)
      .map(([name, t]) => `  ${t.toFixed(1).padStart(8)} ms ${((100 * t) / totalMs).toFixed(1).padStart(5)} %  ${name}`)
      .join('\n');
  console.log(`${scenario}: wall ${ms.toFixed(0)} ms, ${totalMs.toFixed(0)} ms profiled`);
  console.log(`self time:\n${show(self)}`);
  console.log(`inclusive time:\n${show(inclusive)}`);
  const bucket = opt('timeline', 0);
  if (bucket > 0) {
    console.log(`timeline (${bucket} ms slices, busy time and the heaviest stack):`);
    for (const row of await timeline(path.join(tmp, file), bucket)) {
      if (row.atMs < opt('from', 0) || row.atMs > opt('to', Infinity)) continue;
      console.log(
        `  ${String(row.atMs).padStart(6)} ms  busy ${row.busyMs.toFixed(1).padStart(5)}  ${row.topMs.toFixed(1).padStart(5)} ${row.top}`,
      );
    }
  }
} finally {
  await sim?.close();
  await server.close();
  await rm(tmp, { recursive: true, force: true });
}
