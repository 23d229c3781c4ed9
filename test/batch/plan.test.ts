// `nsed batch plan`: the GitHub matrix and the plan file a sharded batch runs by, balanced by
// count or by each item's estimate (the simulator lists each agent's cost per round, so an
// item's rounds set its estimate), against the simulator over real HTTP (docs/ci-matrix.md).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultLines, useBatchRig } from '../harness/batch-rig.js';
import { makeRig } from '../harness/rig.js';
import { planShards } from '../../src/batch/shard-plan.js';
import type { ResolvedItem } from '../../src/batch/resolve.js';

const batch = useBatchRig('plan');

interface PlanFile {
  shards: number;
  by: string;
  weights: number[];
  assign: Record<string, number>;
}
const readPlan = async (file: string): Promise<PlanFile> => JSON.parse(await readFile(file, 'utf8')) as PlanFile;

/** The ids of each shard, 1 first. */
const shardsOf = (plan: PlanFile): string[][] =>
  Array.from({ length: plan.shards }, (_, i) =>
    Object.keys(plan.assign)
      .filter((id) => plan.assign[id] === i + 1)
      .sort(),
  );

/** One item of six rounds beside five of one: by count the big one weighs down its shard. */
const UNEVEN = [
  '{"id":"big","prompt":"q big","rounds":6}',
  ...['a', 'b', 'c', 'd', 'e'].map((id) => `{"id":"${id}","prompt":"q ${id}","rounds":1}`),
].join('\n');

describe('batch plan', () => {
  it('-o json prints the GitHub matrix, one leg per shard, and the plan deals the items evenly', async () => {
    const items = await batch.file('ten.txt', Array.from({ length: 10 }, (_, i) => `q ${i}`).join('\n') + '\n');
    const file = join(batch.dir, 'ten.plan.json');
    const r = await batch.rig.run(['batch', 'plan', items, '--shards', '4', '--out', file, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('{"include":[{"shard":"1/4"},{"shard":"2/4"},{"shard":"3/4"},{"shard":"4/4"}]}\n');
    expect(r.stderr).toContain(`wrote the plan of 4 shards to ${file}`);
    const plan = await readPlan(file);
    expect(shardsOf(plan).map((s) => s.length)).toEqual([3, 3, 2, 2]);
    expect(shardsOf(plan).flat().sort()).toEqual(Array.from({ length: 10 }, (_, i) => `line-${i + 1}`).sort());
  });

  it('--by cost puts the longest item alone and the rest on the lighter shard; by count it would not', async () => {
    const items = await batch.file('uneven.jsonl', `${UNEVEN}\n`);
    const byCost = join(batch.dir, 'uneven.cost.json');
    const r = await batch.rig.run(['batch', 'plan', items, '--shards', '2', '--by', 'cost', '--out', byCost]);
    expect(r.code, r.stderr).toBe(0);
    const cost = await readPlan(byCost);
    expect(shardsOf(cost)).toEqual([['big'], ['a', 'b', 'c', 'd', 'e']]);
    // Each shard's weight is its estimated dollars: six rounds against five of one.
    const [heavy = 0, light = 0] = cost.weights;
    expect(heavy / light).toBeCloseTo(6 / 5, 5);
    expect(r.stdout).toMatch(/^shard 1\/2: 1 item, \$[\d.]+ expected\nshard 2\/2: 5 items, \$[\d.]+ expected\n$/);
    const byCount = join(batch.dir, 'uneven.count.json');
    expect((await batch.rig.run(['batch', 'plan', items, '--shards', '2', '--out', byCount])).code).toBe(0);
    expect(shardsOf(await readPlan(byCount))).toEqual([
      ['b', 'big', 'd'],
      ['a', 'c', 'e'],
    ]);
  });

  it('longest first onto the lightest shard: on uneven estimates the heaviest shard stays within 4/3 of the best', () => {
    const costs = [7, 7, 6, 6, 5, 5, 4, 4, 4];
    const items: ResolvedItem[] = costs.map((_, i) => ({ id: `i${i}`, index: i, prompt: 'q', files: [] }));
    const { plan } = planShards(items, 3, 'cost', 'sha', new Map(items.map((it, i) => [it.id, costs[i] ?? 0])));
    const best = costs.reduce((a, b) => a + b, 0) / 3;
    expect(Math.max(...plan.weights)).toBeLessThanOrEqual((best * 4) / 3);
    expect(plan.weights.reduce((a, b) => a + b, 0)).toBe(48);
    // An item without an estimate weighs the mean of the others, never nothing.
    const unknown = planShards(
      items.slice(0, 3),
      2,
      'cost',
      'sha',
      new Map([
        ['i0', 7],
        ['i1', 5],
      ]),
    );
    expect(unknown.unknownCost).toBe(1);
    expect([...unknown.plan.weights].sort((a, b) => a - b)).toEqual([7, 11]);
  });

  it("batch --shard-plan runs exactly the plan's items; a plan for other items or shard count is refused", async () => {
    const items = await batch.file('planned.jsonl', `${UNEVEN}\n`);
    const file = join(batch.dir, 'planned.json');
    expect((await batch.rig.run(['batch', 'plan', items, '--shards', '2', '--by', 'cost', '--out', file])).code).toBe(
      0,
    );
    const plan = await readPlan(file);
    for (const i of [1, 2]) {
      const r = await batch.rig.run(['batch', items, '--shard', `${i}/2`, '--shard-plan', file]);
      expect(r.code, r.stderr).toBe(0);
      const lines = resultLines(r.stdout);
      expect(lines.map((l) => String(l['id'])).sort()).toEqual(shardsOf(plan)[i - 1]);
      expect(lines[0]?.['shard']).toMatchObject({ index: i, count: 2, split: 'plan', items: lines.length });
    }
    const other = await batch.file('other.txt', 'q x\n');
    const wrongItems = await batch.rig.run(['batch', other, '--shard', '1/2', '--shard-plan', file]);
    expect(wrongItems.code).toBe(2);
    expect(wrongItems.stderr).toContain(`nsed: --shard-plan ${file} was made for other items`);
    const wrongCount = await batch.rig.run(['batch', items, '--shard', '1/3', '--shard-plan', file]);
    expect(wrongCount.code).toBe(2);
    expect(wrongCount.stderr).toContain(`--shard 1/3 does not match --shard-plan ${file}, made for 2 shards`);
    const notPlan = await batch.file('not-plan.json', '{"include":[]}\n');
    const bad = await batch.rig.run(['batch', items, '--shard', '1/2', '--shard-plan', notPlan]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`--shard-plan ${notPlan} is not a shard plan`);
    expect(wrongItems.stdout + wrongCount.stdout + bad.stdout).toBe('');
  });

  it('--shard-plan without --shard, and plan without --shards, are usage errors', async () => {
    const items = await batch.file('u.txt', 'q\n');
    const a = await batch.rig.run(['batch', items, '--shard-plan', 'x.json']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('nsed: --shard-plan goes with --shard I/N');
    const b = await batch.rig.run(['batch', 'plan', items]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('nsed: batch plan needs --shards N');
  });

  it('--by cost where the server lists no cost per round (the strict profile): by count, and a warning says so', async () => {
    const strict = await makeRig({ profile: 'strict' });
    try {
      const items = await batch.file('strict.jsonl', `${UNEVEN}\n`);
      const file = join(batch.dir, 'strict.plan.json');
      const r = await strict.run(['batch', 'plan', items, '--shards', '2', '--by', 'cost', '--out', file]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('nsed: warning: no item has a cost estimate, so the shards are balanced by count\n');
      const plan = await readPlan(file);
      expect(plan.by).toBe('count');
      expect(shardsOf(plan).map((s) => s.length)).toEqual([3, 3]);
    } finally {
      await strict.close();
    }
  });
});
