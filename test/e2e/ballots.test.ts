import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRig, withRig, type Rig } from '../harness/rig.js';
import { until } from '../harness/sse.js';

// Who voted how, end to end against the simulator over real HTTP: the names of a council checked
// before anything is sent, and the ballots of /details in the verdict (docs/ndjson.md §4b).

let rig: Rig;
beforeAll(async () => {
  rig = await makeRig();
});
afterAll(async () => {
  await rig.close();
});

const sent = (method: string, path: RegExp): number =>
  rig.sim.requests.filter((r) => r.method === method && path.test(r.path)).length;

describe('--agents names the server does not list (reliability #221)', () => {
  it('are refused with exit 2 naming the unknown and listing the known, with nothing sent and no session left', async () => {
    const before = sent('POST', /^\/deliberation$/);
    const r = await rig.run(['ask', '--agents', 'CortexA,Nobody', '-o', 'json', 'Design a cache']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown agent Nobody: the orchestrator lists CortexA, CortexB/);
    expect(r.stderr).toContain("'nsed agents' lists them");
    expect(sent('POST', /^\/deliberation$/)).toBe(before);
    const files = await readdir(join(rig.home, 'sessions')).catch(() => []);
    expect(files.filter((f) => f.endsWith('.json'))).toEqual([]);
  });

  it('a council the server lists runs', async () => {
    const r = await rig.run(['ask', '--agents', 'CortexA,CortexB', '-o', 'final', 'Design a cache']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent('GET', /^\/agents$/)).toBeGreaterThan(0);
  });
});

describe('a native deliberation whose end the stream did not carry (reliability #223)', () => {
  const COUNCIL = ['--agents', 'CortexA,CortexB,CortexC', '--rounds', '3'];
  interface Out {
    verdict: { rounds: { completed: number | null }; convergence: { final: number | null }; chosen: unknown };
    gate: { status: string } | null;
  }

  it('resume after the job ended while nsed was dead rebuilds the rounds and verdict of the uninterrupted run from /details', async () => {
    await withRig({ hold: true }, async (held) => {
      const prompt = 'Plan the schema migration of the billing tables';
      const run = held.start(['ask', '-o', 'json', ...COUNCIL, '--min-convergence', '10%', prompt]);
      held.sim.control.release(await held.sim.control.nextJob());
      const base = await run.result;
      expect(base.code, base.stderr).toBe(0);
      const uninterrupted = JSON.parse(base.stdout) as Out;
      expect(uninterrupted.verdict.rounds.completed).toBe(3);

      const child = held.spawn(['ask', '-o', 'json', ...COUNCIL, prompt]);
      const id = await held.sim.control.nextJob();
      await until(async () => {
        const { stdout } = await held.run(['sessions', 'ls', '--state', 'running', '--ids']);
        return stdout.trim() !== '';
      });
      child.kill('SIGKILL');
      expect((await child.result).signal).toBe('SIGKILL');
      held.sim.control.release(id);
      await held.sim.control.ended(id);

      const resumed = await held.run(['resume', '--last', '-o', 'json', '--min-convergence', '10%']);
      expect(resumed.code, resumed.stderr).toBe(0);
      const out = JSON.parse(resumed.stdout) as Out;
      expect(out.verdict).toEqual(uninterrupted.verdict);
      expect(out.gate).toEqual(uninterrupted.gate);
    });
  });
});
