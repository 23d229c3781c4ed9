// A batch's --max-cost / --max-tokens is its TOTAL (docs/reliability.md #242, #243): items that
// would cross it are `skipped` with the reason on their lines, the batch exits 15, and --resume
// counts what the earlier run spent. Against the simulator's own prices, over real HTTP.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { costPerRound, AGENTS, DEFAULT_COUNCIL } from '../../src/sim/agents.js';
import { defaultPolicies } from '../../src/sim/policies.js';
import { money } from '../../src/council/usage.js';
import { testRig } from '../harness/rig.js';
import { deliberations, resultLines, useBatchRig, type ResultLine } from '../harness/batch-rig.js';

const batch = useBatchRig('batch-cap');

const round8 = (n: number): number => Math.round(n * 1e8) / 1e8;

/** What `batch --estimate` expects an item on the default policy to cost at most: every round of its council. */
const HIGH = round8(
  DEFAULT_COUNCIL.reduce((sum, id) => sum + costPerRound(AGENTS.find((a) => a.agent_id === id)!.price), 0) *
    defaultPolicies()[0]!.max_rounds,
);

const costOf = (l: ResultLine): number => (l['usage'] as { cost_usd: number }).cost_usd;

const fiveItems = (): string =>
  ['a', 'b', 'c', 'd', 'e'].map((id) => JSON.stringify({ id, prompt: `Design cache ${id}` })).join('\n') + '\n';

describe('a batch cap (reliability #242)', () => {
  it('skips the items that would cross the total: their lines say why, nothing is sent for them, exit 15, the totals line says what was spent', async () => {
    const items = await batch.file('five.jsonl', fiveItems());
    const out = `${batch.dir}/cost.jsonl`;
    // One item's estimate fits; after it, what it spent plus the next estimate does not.
    const cap = round8(HIGH + 0.005);
    const before = deliberations(batch.rig);
    const r = await batch.rig.run(['batch', items, '-j', '1', '--max-cost', String(cap), '--out', out]);
    expect(r.code, r.stderr).toBe(15);
    const lines = resultLines(await readFile(out, 'utf8'));
    expect(lines.map((l) => [l['id'], l['status']])).toEqual([
      ['a', 'ok'],
      ['b', 'skipped'],
      ['c', 'skipped'],
      ['d', 'skipped'],
      ['e', 'skipped'],
    ]);
    const spent = costOf(lines[0]!);
    expect(spent + HIGH).toBeGreaterThan(cap);
    for (const l of lines.slice(1))
      expect(l).toMatchObject({
        status: 'skipped',
        exit_code: 15,
        session: null,
        job_id: null,
        usage: null,
        error: {
          code: 'cost_cap',
          exit_code: 15,
          message: `not started: ${money(spent)} spent, and this item, expected to cost ${money(HIGH)}, would cross the batch's cost cap of ${money(cap)}`,
        },
      });
    expect(deliberations(batch.rig) - before).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `: 4 skipped, 1 ok; cost \\$${spent.toFixed(4)}; \\${money(spent)} of the \\${money(cap)} cost cap spent\\n$`,
      ),
    );
  });

  it('--resume goes on under the cap counting what the earlier run spent: skipped items are considered again, finished ones never re-sent', async () => {
    const items = await batch.file('resume.jsonl', fiveItems());
    const out = `${batch.dir}/resume-out.jsonl`;
    const first = await batch.rig.run([
      'batch',
      items,
      '-j',
      '1',
      '--max-cost',
      String(round8(HIGH + 0.005)),
      '--out',
      out,
    ]);
    expect(first.code, first.stderr).toBe(15);
    const earlier = costOf(resultLines(await readFile(out, 'utf8'))[0]!);
    // Room for two more items on top of what was spent, not for a third.
    const cap = round8(earlier + 2 * HIGH + 0.001);
    const before = deliberations(batch.rig);
    const r = await batch.rig.run(['batch', items, '-j', '1', '--max-cost', String(cap), '--out', out, '--resume']);
    expect(r.code, r.stderr).toBe(15);
    const added = resultLines(await readFile(out, 'utf8')).slice(5);
    expect(added.map((l) => l['id'])).toEqual(['b', 'c', 'd', 'e']);
    // Each decision counts every line's spend before it, the earlier run's included.
    let spent = earlier;
    let counted = false;
    for (const l of added) {
      if (spent + HIGH > cap) {
        expect(l).toMatchObject({ status: 'skipped', exit_code: 15 });
        expect((l['error'] as { message: string }).message).toContain(`${money(spent)} spent`);
        // Without the earlier run's spend this item would have started: the test tells the two apart.
        if (spent - earlier + HIGH <= cap) counted = true;
      } else {
        expect(l['status']).toBe('ok');
        spent = round8(spent + costOf(l));
      }
    }
    expect(counted).toBe(true);
    expect(added.filter((l) => l['status'] === 'ok')).toHaveLength(deliberations(batch.rig) - before);
    expect(r.stderr).toContain('1 finished earlier: 1 ok');
    expect(r.stderr).toContain(`${money(spent)} of the ${money(cap)} cost cap spent`);
  });

  it('--max-tokens: until an item has ended nothing says what one uses, so the first runs alone; then the most one used is counted per item', async () => {
    const items = await batch.file('tokens.jsonl', fiveItems());
    const out = `${batch.dir}/tokens-out.jsonl`;
    const r = await batch.rig.run(['batch', items, '-j', '1', '--max-tokens', '20000', '--out', out]);
    expect(r.code, r.stderr).toBe(15);
    const lines = resultLines(await readFile(out, 'utf8'));
    const used = (l: ResultLine): number => {
      const u = l['usage'] as { input_tokens: number | null; output_tokens: number | null } | null;
      return (u?.input_tokens ?? 0) + (u?.output_tokens ?? 0);
    };
    // Every item that started counts: one that answered, and one its own share of the cap stopped
    // at a round boundary (cancelled, exit 15), which a late meter on a busy machine can make the
    // last one to run (docs/ci.md "Spend caps": a cap is a ceiling).
    const ran = lines.filter((l) => l['status'] !== 'skipped');
    const stopped = ran.filter((l) => l['status'] !== 'ok');
    expect(stopped.map((l) => [l['status'], l['exit_code']])).toEqual(stopped.map(() => ['cancelled', 15]));
    const total = ran.reduce((n, l) => n + used(l), 0);
    expect(total).toBeLessThanOrEqual(20000);
    const most = Math.max(...ran.map(used));
    expect(total + most).toBeGreaterThan(20000);
    expect(lines.filter((l) => l['status'] === 'skipped').length).toBe(5 - ran.length);
    expect(r.stderr).toContain(`${total} of 20000 tokens used`);
  });

  it('items in flight count at their estimate: -j 2 under a cap that fits one estimate at a time runs them one at a time', async () => {
    const held = await testRig({ hold: true });
    {
      const items = await batch.file('held.jsonl', fiveItems());
      const cap = round8(HIGH * 1.5);
      const run = held.start(['batch', items, '-j', '2', '--max-cost', String(cap)]);
      held.sim.control.release(await held.sim.control.nextJob());
      held.sim.control.release(await held.sim.control.nextJob());
      const r = await run.result;
      expect(r.code, r.stderr).toBe(15);
      const lines = resultLines(r.stdout);
      expect(lines.filter((l) => l['status'] === 'ok').map((l) => l['id'])).toEqual(['a', 'b']);
      expect(lines.filter((l) => l['status'] === 'skipped')).toHaveLength(3);
      expect(held.sim.control.stats()).toMatchObject({ peak: 1, started: 2 });
    }
  });

  it('a cap on a server that cannot meter is refused once, before any item is sent (exit 2); --allow-unmetered runs the items one at a time', async () => {
    {
      const strict = await testRig({ profile: 'strict' });
      const items = await batch.file('strict.jsonl', fiveItems());
      const refused = await strict.run(['batch', items, '-j', '2', '--max-cost', '0.5']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('--max-cost cannot be enforced');
      expect(refused.stdout).toBe('');
      expect(deliberations(strict)).toBe(0);
      const r = await strict.run(['batch', items, '-j', '2', '--max-cost', '0.5', '--allow-unmetered']);
      expect(r.code, r.stderr).toBe(0);
      expect(resultLines(r.stdout).map((l) => l['status'])).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
      // No estimate and no reported dollars: nothing says what an item costs, so none runs beside another.
      expect(strict.sim.control.stats()).toMatchObject({ peak: 1, started: 5 });
    }
  });
});
