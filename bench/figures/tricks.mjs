// Figure 10: what the start-up tricks buy, each an A/B in the same run, interleaved, on the
// bench's private copy of the CLI (docs/performance.md lists them):
// - the CommonJS fast entries (bin/nsed.cjs handing `sessions ls`, `--help` and a one-shot `ask`
//   to dist/fast.cjs, help.cjs and ask.cjs, which read argv with cli/prescan.ts instead of yargs)
//   against the same command through the full ES-module CLI, `node dist/main.js ...`;
// - V8's code cache of each fast entry (Node < 22.1; scripts/code-cache.cjs) against a copy of
//   the CLI without its .v8cache files. On Node >= 22.1 the module compile cache replaces it, and
//   this pair says so instead of a figure.
import { cp, mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { figure } from '../lib/figure.mjs';
import { baseEnv, CLI, runNode, timeNode } from '../lib/proc.mjs';
import { interleave } from '../lib/stats.mjs';

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
};

export async function tricks({ tmp, server }) {
  const home = await mkdtemp(path.join(tmp, 'tricks-home-'));
  const env = baseEnv({ NSED_HOME: home });
  const cliHome = path.dirname(path.dirname(CLI));
  const main = path.join(cliHome, 'dist', 'main.js');
  const bare = path.join(tmp, 'cli-no-code-cache');
  await cp(cliHome, bare, { recursive: true, filter: (src) => !src.endsWith('.v8cache') });
  const bareCli = path.join(bare, 'bin', 'nsed.cjs');
  const ask = ['ask', '-q', '-o', 'final', '--url', server.url, PROMPT];
  // Both ends print the same bytes, or the pair compares different work.
  for (const args of [['sessions', 'ls'], ['--help'], ask]) {
    const [a, b] = [
      await runNode([CLI, ...args], { env, keep: true }),
      await runNode([main, ...args], { env, keep: true }),
    ];
    if (a.stdout !== b.stdout) throw new Error(`nsed ${args[0]}: the fast entry and the full CLI print different text`);
  }
  const variants = {
    fastLs: timeNode([CLI, 'sessions', 'ls'], { env }),
    mainLs: timeNode([main, 'sessions', 'ls'], { env }),
    fastHelp: timeNode([CLI, '--help'], { env }),
    mainHelp: timeNode([main, '--help'], { env }),
    fastAsk: timeNode([CLI, ...ask], { env }),
    mainAsk: timeNode([main, ...ask], { env }),
  };
  if (!hasCompileCache) {
    variants.bareLs = timeNode([bareCli, 'sessions', 'ls'], { env });
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
