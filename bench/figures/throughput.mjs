// Figure 4: a 200,000-chunk stream, end to end, against clients that do nothing but read it.
import { mkdtemp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { atMost, below, figure } from '../lib/figure.mjs';
import { baseEnv, CLI, ROOT, runNode } from '../lib/proc.mjs';
import { interleave, median } from '../lib/stats.mjs';

const ROUNDS = 4;
const CHUNKS = 200_000;
const CHARS = 8;
const floorScript = (name) => fileURLToPath(new URL(`../floors/${name}-client.mjs`, import.meta.url));
const UNDICI = 'undici + eventsource-parser loop';

export async function throughput({ tmp, server }) {
  const env = baseEnv({ NSED_HOME: await mkdtemp(path.join(tmp, 'throughput-home-')) });
  const url = `${server.url}/bulk/${CHUNKS}/${CHARS}`;
  const nsed = (mode) => [CLI, 'ask', '-q', '-o', mode, '--url', url, 'Stream a long answer'];
  const args = {
    final: nsed('final'),
    ndjson: nsed('ndjson'),
    text: nsed('text'),
    undici: [floorScript('undici'), url, 'final'],
    undiciStream: [floorScript('undici'), url, 'stream'],
    http: [floorScript('http'), url, 'final'],
    openai: [floorScript('openai'), url, 'final'],
  };
  // Every run is checked: a client that printed something else did different work.
  const answer = 'x'.repeat(CHUNKS * CHARS);
  const expected = {
    final: `${answer}\n`,
    undici: `${answer}\n`,
    http: `${answer}\n`,
    openai: `${answer}\n`,
    // Text mode ends stdout with a newline when the answer has none (README, output modes).
    text: `${answer}\n`,
    undiciStream: answer,
  };
  const timed = (name) => async () => {
    const { ms, stdout, bytes } = await runNode(args[name], { env, keep: name in expected });
    if (name in expected && stdout !== expected[name])
      throw new Error(`${name} printed ${stdout.length} characters, not the ${expected[name].length} sent`);
    if (name === 'ndjson' && bytes < CHUNKS * CHARS) throw new Error(`ndjson printed only ${bytes} bytes`);
    return ms;
  };
  const s = await interleave(Object.fromEntries(Object.keys(args).map((k) => [k, timed(k)])), ROUNDS, { warmup: 0 });
  const rate = (samples) => Math.round(CHUNKS / (median(samples) / 1000));
  const fig = (name, nsedKey, floorKey, floorName, target) =>
    figure({
      name: `throughput ${name}`,
      floorName,
      nsed: s[nsedKey],
      floor: s[floorKey],
      unit: 'ms',
      target,
      extra: { chunks: CHUNKS, nsed_events_per_s: rate(s[nsedKey]), floor_events_per_s: rate(s[floorKey]) },
      note: `${rate(s[nsedKey]).toLocaleString('en')} vs ${rate(s[floorKey]).toLocaleString('en')} chunks/s`,
    });
  return [
    fig('ask -o final vs undici floor', 'final', 'undici', UNDICI, atMost(1.1)),
    fig('ask -o final vs node:http floor', 'final', 'http', 'node:http + eventsource-parser'),
    fig(
      'ask -o final vs openai package',
      'final',
      'openai',
      `openai ${await openaiVersion()} chat.completions stream`,
      below(1),
    ),
    fig(
      'ask -o ndjson vs undici floor writing each piece',
      'ndjson',
      'undiciStream',
      `${UNDICI}, a stdout write per chunk`,
      atMost(1.3),
    ),
    fig(
      'ask -o text (piped) vs undici floor writing each piece',
      'text',
      'undiciStream',
      `${UNDICI}, a stdout write per chunk`,
    ),
  ];
}

async function openaiVersion() {
  const pkg = await readFile(path.join(ROOT, 'node_modules', 'openai', 'package.json'), 'utf8');
  return JSON.parse(pkg).version;
}
