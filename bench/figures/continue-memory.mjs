// Figure 5b: the peak memory of `continue` on a 1,000-turn session (it reads the session and
// resends its whole lineage) against that of a short `ask` on an empty store, both a short answer
// from the same server, interleaved (target: ≤ 1.5×).
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { atMost, figure } from '../lib/figure.mjs';
import { baseEnv, CLI, peakRssKib, peakRssMethod, whyNot } from '../lib/proc.mjs';
import { interleave } from '../lib/stats.mjs';
import { generateLongSession } from '../store/generate.mjs';

const ROUNDS = 5;
const TURNS = 1_000;
export const CONTINUE_NAME = `memory continue on a ${TURNS.toLocaleString('en')}-turn session / ask on an empty store`;

export async function continueMemory({ tmp, server, store }) {
  const longHome = await mkdtemp(path.join(tmp, 'continue-home-'));
  const emptyHome = await mkdtemp(path.join(tmp, 'ask-home-'));
  const longEnv = baseEnv({ NSED_HOME: longHome });
  const emptyEnv = baseEnv({ NSED_HOME: emptyHome });
  const id = await generateLongSession(await store(), longHome, TURNS);
  const cont = [CLI, 'continue', '-s', id, '-q', '-o', 'final', '--url', server.url, 'And then?'];
  const ask = [CLI, 'ask', '-q', '-o', 'final', '--url', server.url, 'What is the answer?'];
  const missing = await whyNot(cont.slice(1), longEnv);
  if (missing) return [{ name: CONTINUE_NAME, skipped: missing }];
  const s = await interleave(
    {
      cont: async () => (await peakRssKib(cont, { env: longEnv, tmp })) / 1024,
      ask: async () => (await peakRssKib(ask, { env: emptyEnv, tmp })) / 1024,
    },
    ROUNDS,
    { warmup: 0 },
  );
  return [
    figure({
      name: CONTINUE_NAME,
      floorName: 'nsed ask -o final on an empty store, the same short answer',
      nsed: s.cont,
      floor: s.ask,
      unit: 'MiB',
      target: atMost(1.5),
      extra: { turns: TURNS, peak_rss_via: await peakRssMethod(tmp) },
    }),
  ];
}
