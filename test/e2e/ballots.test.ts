import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRig, type Rig } from '../harness/rig.js';

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
