import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHoldingProxy, type HoldingProxy } from '../harness/holding-proxy.js';
import { testRig, type Rig } from '../harness/rig.js';

/**
 * Two runs under one `--idempotency-key`, started at once on one store
 * (docs/reliability.md #133): the key's claim is taken before anything is sent, so one run sends and the other
 * follows its deliberation. The race is made deterministic by holding the first run's look-up
 * (`GET /deliberations`) at a proxy until the second run has either sent its own look-up (the
 * race lost: both would send) or said it waits for the key; the simulator holds the one job
 * that then starts.
 */

let rig: Rig | undefined;
let proxy: HoldingProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

const COMPAT = ['ask', '-p', 'fast', '--idempotency-key', 'ci-77/race', 'Review the cache design'];
const NATIVE = [
  'ask',
  '--agents',
  'CortexA,CortexB',
  '--rounds',
  '1',
  '--idempotency-key',
  'ci-77/race-n',
  'Pick a queue',
];

describe('two runs under one key started at once (reliability #133)', () => {
  for (const [path, args] of [
    ['compat', COMPAT],
    ['native', NATIVE],
  ] as const) {
    it(`${path}: one start, one session, and the second run follows the first one's deliberation (reliability #133)`, async () => {
      rig = await testRig({ hold: true });
      let lookups = 0;
      let secondLookup: () => void = () => undefined;
      const raced = new Promise<void>((resolve) => (secondLookup = resolve));
      proxy = await startHoldingProxy(rig.sim.url, 'hold-headers', (seen) => {
        if (seen.method !== 'GET' || seen.url !== '/deliberations') return false;
        lookups += 1;
        if (lookups === 2) secondLookup();
        return lookups === 1;
      });
      const env = { NSED_URL: proxy.url };
      const first = rig.start([...args, '-o', 'json'], { env });
      await proxy.started;
      const second = rig.start([...args, '-o', 'json'], { env });
      await Promise.race([second.output((out) => out.includes('looking this key up; waiting for it')), raced]);
      proxy.release();
      const job = await rig.sim.control.nextJob();
      // A second start, should one come, runs free: the test fails on its count, not on a hang.
      rig.sim.control.hold = false;
      rig.sim.control.release(job);
      const [a, b] = await Promise.all([first.result, second.result]);
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(0);
      const outA = JSON.parse(a.stdout) as { session: string; job_id: string; content: string };
      const outB = JSON.parse(b.stdout) as { session: string; job_id: string; content: string };
      expect(outB).toMatchObject({ session: outA.session, job_id: job, content: outA.content });
      expect(outA.job_id).toBe(job);
      // Followed while it ran, or its recorded answer printed once it had ended: the one session either way.
      expect(b.stderr).toMatch(/following it|recording its answer|printing the recorded answer/);
      expect(b.stderr).toContain(`session ${outA.session}`);
      const sent = rig.sim.requests.filter(
        (q) => q.method === 'POST' && (q.path === '/v1/chat/completions' || q.path === '/deliberation'),
      );
      expect(sent).toHaveLength(1);
      expect((await readdir(join(rig.home, 'sessions'))).filter((n) => n.endsWith('.json'))).toEqual([
        `${outA.session}.json`,
      ]);
      const session = await rig.session<{ turns: Array<{ role: string; status: string }> }>(outA.session);
      expect(session.turns.map((t) => `${t.role}:${t.status}`)).toEqual(['user:complete', 'assistant:complete']);
    });
  }
});
