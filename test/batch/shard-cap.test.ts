// A spend cap across a matrix: under --shard I/N, --max-cost and --max-tokens are the whole
// matrix's, each shard keeping its share (said on stderr, on every line and in --estimate -o
// json); --max-cost-per-shard caps each machine alone (docs/ci-matrix.md, reliability #242).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultLines, useBatchRig, type ResultLine } from '../harness/batch-rig.js';
import { shardCap } from '../../src/batch/shard-cap.js';
import { shardIndexOf } from '../../src/batch/shard.js';

const batch = useBatchRig('shard-cap');

const costOf = (lines: ResultLine[]): number =>
  lines.reduce((sum, l) => sum + Number((l['usage'] as { cost_usd?: number } | null)?.cost_usd ?? 0), 0);

/** Six items, three per shard by a plan; each shard run with `flags`, one item at a time. */
async function twoShards(
  name: string,
  flags: string[],
): Promise<Array<{ code: number; stderr: string; lines: ResultLine[] }>> {
  const items = await batch.file(`${name}.txt`, 'q1\nq2\nq3\nq4\nq5\nq6\n');
  const plan = join(batch.dir, `${name}.plan.json`);
  expect((await batch.rig.run(['batch', 'plan', items, '--shards', '2', '--out', plan])).code).toBe(0);
  const runs = [];
  for (const i of [1, 2]) {
    const r = await batch.rig.run(['batch', items, '--shard', `${i}/2`, '--shard-plan', plan, '-j', '1', ...flags]);
    runs.push({ code: r.code, stderr: r.stderr, lines: resultLines(r.stdout) });
  }
  return runs;
}

describe('a cap that holds across a matrix', () => {
  it("--max-cost is the whole matrix's: each shard keeps its half, and together they spend within it", async () => {
    // Each item costs about $0.026 and is expected at $0.06: the whole $0.20 would start five of
    // six items in one process; each shard's $0.10 starts two of its three.
    const runs = await twoShards('matrix', ['--max-cost', '0.2']);
    for (const [i, run] of runs.entries()) {
      expect(run.stderr).toContain(
        `shard ${i + 1}/2: --max-cost $0.2 is the whole matrix's; this shard keeps to its share, $0.1 (3 of 6 items)\n`,
      );
      for (const l of run.lines)
        expect(l['shard']).toMatchObject({
          cap: { scope: 'matrix', max_cost_usd: 0.2, share: 0.5, shard_max_cost_usd: 0.1 },
        });
      expect(costOf(run.lines)).toBeLessThanOrEqual(0.1);
      const skipped = run.lines.filter((l) => l['status'] === 'skipped');
      expect(skipped.length).toBeGreaterThan(0);
      expect(skipped[0]).toMatchObject({ exit_code: 15, error: { code: 'cost_cap' } });
      expect(run.code).toBe(15);
    }
    expect(costOf(runs.flatMap((r) => r.lines))).toBeLessThanOrEqual(0.2);
  });

  it('--max-cost-per-shard caps each machine alone; beside --max-cost the lower holds', async () => {
    const alone = await twoShards('per-shard', ['--max-cost-per-shard', '0.5']);
    for (const [i, run] of alone.entries()) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(`shard ${i + 1}/2: --max-cost-per-shard $0.5 caps this machine alone\n`);
      expect(run.lines.map((l) => l['status'])).toEqual(['ok', 'ok', 'ok']);
      expect(run.lines[0]?.['shard']).toMatchObject({
        cap: { scope: 'shard', max_cost_usd: null, max_cost_per_shard_usd: 0.5, shard_max_cost_usd: 0.5 },
      });
    }
    const both = await twoShards('both', ['--max-cost', '10', '--max-cost-per-shard', '0.05']);
    expect(both[0]?.stderr).toContain(
      'this shard keeps to its share, $5.00 (3 of 6 items); --max-cost-per-shard $0.05 is lower and holds',
    );
    expect(both[0]?.lines[0]?.['shard']).toMatchObject({ cap: { shard_max_cost_usd: 0.05 } });
    expect(costOf(both[0]?.lines ?? [])).toBeLessThanOrEqual(0.05);
  });

  it("--estimate -o json under --shard carries the matrix cap and this shard's share", async () => {
    const items = await batch.file('est.txt', 'q1\nq2\nq3\nq4\n');
    const own = ['line-1', 'line-2', 'line-3', 'line-4'].filter((id) => shardIndexOf(id, 2) === 1).length;
    const r = await batch.rig.run([
      'batch',
      items,
      '--shard',
      '1/2',
      '--max-tokens',
      '1000',
      '--estimate',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const o = JSON.parse(r.stdout) as { items: unknown[]; shard_cap: Record<string, unknown> };
    expect(o.items).toHaveLength(own);
    expect(o.shard_cap).toMatchObject({
      scope: 'matrix',
      max_tokens: 1000,
      share: own / 4,
      shard_max_tokens: Math.floor((1000 * own) / 4),
    });
  });

  it('the shares of every shard never add up past the cap (16 shards of 10,000 items split by hash)', () => {
    const counts = Array.from({ length: 16 }, () => 0);
    for (let i = 0; i < 10_000; i++) counts[shardIndexOf(`item-${i}`, 16) - 1]! += 1;
    const shares = counts.map(
      (own) => shardCap({ maxCostUsd: 50, maxTokens: 1_000_003 }, undefined, { own, all: 10_000 }).cap,
    );
    expect(shares.reduce((a, c) => a + (c?.maxCostUsd ?? 0), 0)).toBeLessThanOrEqual(50);
    expect(shares.reduce((a, c) => a + (c?.maxTokens ?? 0), 0)).toBeLessThanOrEqual(1_000_003);
    // Not starved either: each share is within a cent (a token) of its exact part.
    for (const [i, c] of shares.entries())
      expect(50 * ((counts[i] ?? 0) / 10_000) - (c?.maxCostUsd ?? 0)).toBeLessThan(0.01);
  });

  it('--max-cost-per-shard without --shard is a usage error', async () => {
    const items = await batch.file('u.txt', 'q\n');
    const r = await batch.rig.run(['batch', items, '--max-cost-per-shard', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nsed: --max-cost-per-shard goes with --shard I/N');
  });
});
