// A batch tunes its own process's heap once its items' code is loaded (src/cli/engine-profile.ts,
// src/batch/run-batch.ts), and one turn once its stream runs long (src/turn/live-turn.ts): V8's
// young generation stops at 8 MiB where it would double to 32, and the code caches other commands
// left in Node's compile cache stay theirs. Seen as V8 and Node report them, from the real CLI.
import { createRequire } from 'node:module';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LONG_STREAM_EVENTS } from '../../src/turn/live-turn.js';
import { chunk } from '../api/fixtures.js';
import { resultLines } from '../harness/batch-rig.js';
import { spawnCli } from '../harness/process.js';
import { ev } from '../harness/scripted-client.js';
import { testRig } from '../harness/rig.js';
import { sseHead, startServer, type ScriptedServer } from '../harness/scripted-server.js';
import { tempHome } from '../harness/temp-store.js';

const MiB = 1024 * 1024;
// What the spy below says a tuning does, in order: the collection comes after the flags, so that
// the old generation's limit is set under them.
const TUNED = [
  'flag --semi-space-growth-factor=1',
  'flag --heap-growing-percent=30',
  'flag --expose-gc',
  'forced full collection',
];
// Preloaded into the CLI process: says on stderr each V8 flag the process sets, each full
// collection the process forced, and at exit the young generation's size as node:v8 reports it.
const SPY = `import v8 from 'node:v8';
import { syncBuiltinESMExports } from 'node:module';
import { PerformanceObserver, constants } from 'node:perf_hooks';
const set = v8.setFlagsFromString;
v8.setFlagsFromString = (flag) => { process.stderr.write('[v8 flag ' + flag + ']\\n'); set(flag); };
syncBuiltinESMExports();
new PerformanceObserver((list) => {
  for (const { detail } of list.getEntries()) {
    if (detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR && detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) {
      process.stderr.write('[v8 forced full collection]\\n');
    }
  }
}).observe({ entryTypes: ['gc'] });
process.on('exit', () => {
  const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  process.stderr.write('[young generation ' + (young ? young.space_size : 'none') + ']\\n');
});`;
const NODE_OPTIONS = `--import=data:text/javascript;base64,${Buffer.from(SPY).toString('base64')}`;
// V8 14 (Node 26) sizes its young generation in steps of its own, not only by the growth factor
// the tuning sets: there the 8 MiB is where growth slows, not a bound (8-16 MiB seen).
const doublesYoungGeneration = Number(process.versions.v8.split('.')[0]) < 14;
const hasCompileCache = typeof createRequire(import.meta.url)('node:module').enableCompileCache === 'function';

/** A prompt-per-line file of `n` items in the rig's home. */
async function itemsFile(home: string, n: number): Promise<string> {
  const file = join(home, `items-${n}.txt`);
  await writeFile(
    file,
    Array.from({ length: n }, (_, i) => `Question ${i + 1}: what retries job ${i + 1}?`).join('\n'),
  );
  return file;
}

/** The heap tuning's flags and forced collections the spy saw, in order (not the WebAssembly flags every entry sets). */
function engineLines(stderr: string): string[] {
  // The spy's exit line is there whenever the spy was loaded: without it, an empty list proves nothing.
  expect(stderr).toMatch(/\[young generation \d+\]/);
  return [
    ...stderr.matchAll(/\[v8 (flag --(?:semi-space|heap-growing|expose-gc)[^\]]*|forced full collection)\]/g),
  ].map((m) => m[1] ?? '');
}

describe('the engine of a batch', () => {
  it('sets its heap flags once and collects fully then, and keeps its young generation at 8 MiB over 200 items where V8 alone doubles it to 32', async () => {
    const rig = await testRig();
    const items = await itemsFile(rig.home, 200);
    const run = await rig.runProcess(['batch', items, '-j', '16', '-p', 'fast'], {
      env: { NODE_OPTIONS },
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    expect(resultLines(run.stdout)).toHaveLength(200);
    expect(engineLines(run.stderr)).toEqual(TUNED);
    const young = Number(/\[young generation (\d+)\]/.exec(run.stderr)?.[1]);
    expect(young).toBeGreaterThan(0);
    // Untuned, the young generation was 16 MiB after the first item and 32 MiB after ~100
    // (bench/RESULTS.md, round 15); tuned, it grows no further than its first size of 8 or more.
    if (doublesYoungGeneration) expect(young).toBeLessThanOrEqual(8 * MiB);
  });

  it.skipIf(!hasCompileCache)(
    "leaves the compile cache another command wrote accepted, by that command's next run (Node >= 22.1)",
    async () => {
      const rig = await testRig();
      const items = await itemsFile(rig.home, 60);
      const env = { NODE_COMPILE_CACHE: join(rig.home, 'compile-cache'), NODE_DEBUG_NATIVE: 'COMPILE_CACHE' };
      // `agents` loads the connection and the API client, which a batch loads before it tunes.
      const first = await rig.runProcess(['agents'], { env, timeoutMs: 60_000 });
      expect(first.code, first.stderr.slice(-2000)).toBe(0);
      const batch = await rig.runProcess(['batch', items, '-j', '16', '-p', 'fast'], { env, timeoutMs: 120_000 });
      expect(batch.code, batch.stderr.slice(-2000)).toBe(0);
      expect(batch.stderr).not.toMatch(/was rejected/);
      const again = await rig.runProcess(['agents'], { env, timeoutMs: 60_000 });
      expect(again.code, again.stderr.slice(-2000)).toBe(0);
      expect(again.stderr).toMatch(/chunks\/connection-[^ ]*\.js was accepted/);
      expect(again.stderr).not.toMatch(/was rejected/);
    },
  );
});

/** A chat-completions stream of `pieces` content chunks, then its finish and [DONE]. */
function answerIn(pieces: number): string {
  return (
    ev(chunk({ role: 'assistant' })) +
    ev(chunk({ content: 'word ' })).repeat(pieces) +
    ev(chunk({}, 'stop')) +
    ev('[DONE]')
  );
}

describe('the engine of one turn', () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** `ask` answered in `pieces` chunks; what the spy saw of the tuning. */
  async function ask(pieces: number): Promise<string[]> {
    const body = answerIn(pieces);
    server = await startServer((_req, res) => {
      sseHead(res, { 'x-nsed-session-id': 'long-1' });
      res.end(body);
    });
    const home = await tempHome();
    const run = await spawnCli(['ask', '-o', 'final', '--url', server.url, 'a long answer, please'], {
      env: { NSED_HOME: home, NODE_OPTIONS, NO_COLOR: '1' },
      timeoutMs: 120_000,
    }).result;
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    expect(run.stdout.trimEnd()).toBe('word '.repeat(pieces).trimEnd());
    return engineLines(run.stderr);
  }

  it(`tunes its heap as a batch's once its stream passes ${LONG_STREAM_EVENTS} events`, async () => {
    expect(await ask(3 * LONG_STREAM_EVENTS)).toEqual(TUNED);
  });

  it('leaves the heap of a short answer as V8 sized it', async () => {
    expect(await ask(LONG_STREAM_EVENTS - 10)).toEqual([]);
  });
});
