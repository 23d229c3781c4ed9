#!/usr/bin/env node
// `npm run test:loaded [-- --runs=N] [-- vitest args]`: the test suite while two CPU-bound busy
// loops compete for the cores, the way a busy laptop or a shared CI runner does. A test that
// passes only on an idle machine races the clock; this shows it. Each busy loop stops by itself
// after a bounded time and is killed when the suite ends, whatever happens.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const LOOPS = 2;
// Longer than any suite run here; a bound, so a loop left behind by a crash cannot spin forever.
const LOOP_LIMIT_S = 20 * 60;

const args = process.argv.slice(2);
const runsArg = args.find((a) => a.startsWith('--runs='));
const runs = runsArg === undefined ? 1 : Number(runsArg.slice('--runs='.length));
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write('test:loaded: --runs must be a positive integer\n');
  process.exit(2);
}
const vitestArgs = args.filter((a) => a !== runsArg);
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const busy = `const end = Date.now() + ${LOOP_LIMIT_S * 1000}; let x = 0; while (Date.now() < end) x = (x + Math.sqrt(x + 1)) % 1e9;`;

const loops = Array.from({ length: LOOPS }, () => spawn(process.execPath, ['-e', busy], { stdio: 'ignore' }));
const stopLoops = () => {
  for (const loop of loops) if (loop.exitCode === null && loop.signalCode === null) loop.kill('SIGKILL');
};
process.on('exit', stopLoops);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    stopLoops();
    process.exit(128 + (sig === 'SIGINT' ? 2 : sig === 'SIGTERM' ? 15 : 1));
  });
}

const results = [];
for (let i = 1; i <= runs; i++) {
  const started = performance.now();
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, 'run', ...vitestArgs], { stdio: 'inherit' });
    child.on('close', (c, signal) => resolve(c ?? (signal === null ? 1 : 128)));
  });
  const seconds = (performance.now() - started) / 1000;
  results.push({ code, seconds });
  process.stdout.write(
    `test:loaded: run ${i}/${runs} beside ${LOOPS} busy loops: exit ${code}, ${seconds.toFixed(1)} s\n`,
  );
}
stopLoops();
const failed = results.filter((r) => r.code !== 0).length;
process.stdout.write(
  `test:loaded: ${runs - failed} of ${runs} runs passed (${results.map((r) => `${r.seconds.toFixed(0)} s`).join(', ')})\n`,
);
process.exit(failed === 0 ? 0 : 1);
