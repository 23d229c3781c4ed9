// Figure 2: the fixed price of one `nsed ask` in a shell loop, against the smallest Node client
// that sends the same request and prints the same answer.
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { atMost, figure } from '../lib/figure.mjs';
import { baseEnv, CLI, runNode, timeNode } from '../lib/proc.mjs';
import { interleave } from '../lib/stats.mjs';

const ROUNDS = 15;
export const ONE_SHOT_NAME = 'one-shot ask -o final, short answer';
const HTTP_FLOOR = fileURLToPath(new URL('../floors/http-client.mjs', import.meta.url));

export async function oneShot({ tmp, server }) {
  const env = baseEnv({ NSED_HOME: await mkdtemp(path.join(tmp, 'one-shot-home-')) });
  const nsedArgs = [CLI, 'ask', '-q', '-o', 'final', '--url', server.url, 'What is the answer?'];
  const floorArgs = [HTTP_FLOOR, server.url, 'final'];
  const [a, b] = [await runNode(nsedArgs, { env, keep: true }), await runNode(floorArgs, { env, keep: true })];
  if (a.stdout !== b.stdout)
    throw new Error(`nsed printed ${JSON.stringify(a.stdout)}, the floor ${JSON.stringify(b.stdout)}`);
  const s = await interleave({ nsed: timeNode(nsedArgs, { env }), floor: timeNode(floorArgs, { env }) }, ROUNDS, {
    warmup: 1,
  });
  return [
    figure({
      name: ONE_SHOT_NAME,
      floorName: 'node:http + eventsource-parser script',
      nsed: s.nsed,
      floor: s.floor,
      unit: 'ms',
      target: atMost(1.25),
    }),
  ];
}
