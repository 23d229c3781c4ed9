#!/usr/bin/env node
// What the module compile cache does to start-up: `node bench/compile-cache.mjs [NODE]` times
// `nsed --version` and `nsed sessions ls` (empty store) through bin/nsed.cjs, 20 runs each with
// the cache on (a warm private cache directory) and off (NODE_DISABLE_COMPILE_CACHE=1),
// interleaved so both meet the same noise, and prints the medians. NODE defaults to this node;
// `npx -y node@22 bench/compile-cache.mjs` measures on Node 22. Needs a built dist/.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNS = 20;
const node = process.argv[2] ?? process.execPath;
const bin = fileURLToPath(new URL('../bin/nsed.cjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'nsed-compile-cache-'));
const base = { PATH: process.env.PATH ?? '', NSED_HOME: join(dir, 'store'), NO_COLOR: '1' };
const modes = {
  on: { ...base, NODE_COMPILE_CACHE: join(dir, 'cache') },
  off: { ...base, NODE_DISABLE_COMPILE_CACHE: '1' },
};
const commands = { '--version': ['--version'], 'sessions ls': ['sessions', 'ls'] };

const once = (args, env) => {
  const t = performance.now();
  const r = spawnSync(node, [bin, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`nsed ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return performance.now() - t;
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2;
};

try {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  for (const args of Object.values(commands)) once(args, modes.on); // warms the cache
  const samples = {};
  for (let i = 0; i < RUNS; i++) {
    for (const [name, args] of Object.entries(commands)) {
      const order = i % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
      for (const mode of order) (samples[`${name} ${mode}`] ??= []).push(once(args, modes[mode]));
    }
  }
  console.log(
    `Node ${version}, ${RUNS} runs each, load average ${(await import('node:os'))
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const name of Object.keys(commands)) {
    const on = median(samples[`${name} on`]);
    const off = median(samples[`${name} off`]);
    console.log(
      `${name}: cache on ${on.toFixed(1)} ms, off ${off.toFixed(1)} ms (${(((on - off) / off) * 100).toFixed(0)} %)`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
