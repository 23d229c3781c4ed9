// `node bench/profile.mjs SCENARIO [--top=N] [--from=MS] [--to=MS] [--timeline=MS]`: runs the built CLI once
// under --cpu-prof against the bench server and prints the heaviest frames, self and
// inclusive. This is how the notes in bench/RESULTS.md on missed targets were made.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarize, timeline } from './lib/cpu-profile.mjs';
import { baseEnv, CLI, runNode } from './lib/proc.mjs';
import { startServer } from './lib/server.mjs';
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
};

const [scenario] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const opt = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
if (!scenario || !(scenario in SCENARIOS)) {
  console.error(
    `usage: node bench/profile.mjs ${Object.keys(SCENARIOS).join('|')} [--top=N] [--from=MS] [--to=MS] [--timeline=MS]`,
  );
  process.exit(2);
}

const tmp = await mkdtemp(path.join(os.tmpdir(), 'nsed-profile-'));
const server = await startServer();
try {
  const home = path.join(tmp, 'home');
  let longId = '';
  if (scenario.startsWith('sessions-') && scenario !== 'sessions-ls-empty') {
    // The same stores the listing figures run on.
    const { openFileStore } = await loadStore(await bundleStore(tmp));
    if (scenario === 'sessions-ls') await generateStore(openFileStore, home, 10_000);
    else longId = await generateLongSession(openFileStore, home, 1_000);
  }
  const args = [
    '--cpu-prof',
    `--cpu-prof-dir=${tmp}`,
    '--cpu-prof-interval=100',
    ...SCENARIOS[scenario](server.url, longId),
  ];
  const { ms } = await runNode(args, { env: baseEnv({ NSED_HOME: home }) });
  const [file] = (await readdir(tmp)).filter((f) => f.endsWith('.cpuprofile'));
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
  await server.close();
  await rm(tmp, { recursive: true, force: true });
}
