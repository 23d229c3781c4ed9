// The spend cap's watch costs a turn nothing measurable: one-shot `ask -o final` with
// `--max-cost` set against the same command without it (docs/ci.md "Spend caps"). The capped run asks
// `GET /agents` for prices before sending (the bench server lists them, as an NSED orchestrator
// does) and watches the usage while the answer streams; the answer is the same.
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { atMost, figure } from '../lib/figure.mjs';
import { baseEnv, CLI, runNode, timeNode } from '../lib/proc.mjs';
import { interleave } from '../lib/stats.mjs';

const ROUNDS = 15;

export async function spendCap({ tmp, server }) {
  const env = baseEnv({ NSED_HOME: await mkdtemp(path.join(tmp, 'spend-cap-home-')) });
  const plain = [CLI, 'ask', '-q', '-o', 'final', '--url', server.url, 'What is the answer?'];
  const capped = [CLI, 'ask', '-q', '-o', 'final', '--max-cost', '5', '--url', server.url, 'What is the answer?'];
  const [a, b] = [await runNode(capped, { env, keep: true }), await runNode(plain, { env, keep: true })];
  if (a.stdout !== b.stdout)
    throw new Error(`with --max-cost nsed printed ${JSON.stringify(a.stdout)}, without ${JSON.stringify(b.stdout)}`);
  const s = await interleave({ capped: timeNode(capped, { env }), plain: timeNode(plain, { env }) }, ROUNDS, {
    warmup: 1,
  });
  return [
    figure({
      name: 'one-shot ask -o final with --max-cost / without',
      floorName: 'the same ask without a cap',
      nsed: s.capped,
      floor: s.plain,
      unit: 'ms',
      target: atMost(1.05),
    }),
  ];
}
