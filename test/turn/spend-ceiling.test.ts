import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Session } from '../../src/session/model.js';
import { BUDGET_POLL_MS, METER_READ_MS } from '../../src/turn/spend-watch.js';
import { realClock, type Clock } from '../harness/cli.js';
import { resultLines } from '../harness/batch-rig.js';
import { testRig, type Rig } from '../harness/rig.js';

/**
 * A spend cap is a ceiling (docs/ci.md "Spend caps", docs/reliability.md #233-#235): before each round
 * nsed compares what was spent plus what the round is expected to cost with the cap, and cancels
 * at that boundary, so the round that would cross it never starts. The simulator holds each job
 * and lets it on one round at a time; the run's clock never fires the watch's once-a-second look,
 * so every `/budget` read is one the test knows of (the job named, a round scored), and each
 * decision is made on figures the parked job cannot change.
 */

/** Resolves when `signal` aborts (the watch stopped): the look it waits for never comes otherwise. */
const never = (signal?: AbortSignal): Promise<void> =>
  new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));

/**
 * The run's own clock, but the spend watch looks only when woken (a job named, a round scored);
 * a `/budget` read's bound (4 s) never passes on its own, so a busy machine cannot turn a slow
 * loopback answer into the fallback; with `lateMeter` it has passed as soon as the read starts.
 */
const boundariesOnly = (opts: { lateMeter?: boolean } = {}): Clock => ({
  now: () => new Date(),
  sleep: (ms, signal) => {
    if (ms === BUDGET_POLL_MS) return never(signal);
    if (ms === METER_READ_MS) return opts.lateMeter === true ? Promise.resolve() : never(signal);
    return realClock.sleep(ms, signal);
  },
});

const cancels = (r: Rig, job: string) =>
  r.sim.requests.filter((q) => q.method === 'POST' && q.path === `/deliberation/${job}/cancel`);

interface Budget {
  total_input_tokens: number;
  output_tokens?: never;
  total_output_tokens: number;
  estimated_cost_usd: number;
}

/** The parked job's `/budget`, as the test reads it itself. */
async function budgetOf(r: Rig, job: string): Promise<Budget> {
  const res = await fetch(`${r.sim.url}/deliberation/${job}/budget`);
  return ((await res.json()) as { budget: Budget }).budget;
}

const round8 = (n: number): number => Math.round(n * 1e8) / 1e8;

/**
 * Lets a held job run one round at a time. After each round the client reads `/budget` (the sim
 * counts the read as it arrives, before the job may go on); the test reads the same figures and,
 * where spent plus the rounds' average would pass the cap, expects the client to cancel now.
 * Returns the rounds that ran, what was spent and what the next round was expected to add.
 */
async function roundByRound(
  r: Rig,
  job: string,
  spentOf: (b: Budget) => number,
  cap: number,
  expectedOf: (spent: number, rounds: number) => number,
): Promise<{ rounds: number; spent: number; expected: number }> {
  let reads = 1;
  // The client reads /budget once when it learns the job's id.
  await r.sim.control.budgetReads(job, reads);
  for (let rounds = 1; rounds < 10; rounds++) {
    r.sim.control.release(job, 2);
    reads += 1;
    const seen = await r.sim.control.budgetReads(job, reads);
    expect(seen.ended, `the job ended before the client looked at round ${rounds}`).toBe(false);
    const spent = spentOf(await budgetOf(r, job));
    reads += 1;
    const expected = expectedOf(spent, rounds);
    expect(spent, `round ${rounds} alone passed the cap`).toBeLessThan(cap);
    if (spent + expected > cap) return { rounds, spent, expected };
  }
  throw new Error('the cap was never reached');
}

const tokensOf = (b: Budget): number => b.total_input_tokens + b.total_output_tokens;

describe('a cap is a ceiling: the round that would cross it never starts (reliability #233)', () => {
  it('--max-cost cancels at the boundary where spent plus the rounds so far would pass it; -o json says capped with the figures', async () => {
    const rig = await testRig({ hold: true });
    const cap = 0.025;
    const run = rig.start(['ask', '-o', 'json', '--max-cost', String(cap), '-p', 'deep', 'Design a cache'], {
      clock: boundariesOnly(),
    });
    const job = await rig.sim.control.nextJob();
    const stop = await roundByRound(
      rig,
      job,
      (b) => b.estimated_cost_usd,
      cap,
      (s, n) => round8(s / n),
    );
    const r = await run.result;
    expect(r.code, r.stderr).toBe(15);
    // Only the rounds that fitted ran: the next round's proposals never started.
    expect(rig.sim.control.job(job)).toMatchObject({ phases: 2 * stop.rounds, ended: true });
    expect(cancels(rig, job)).toHaveLength(1);
    const out = JSON.parse(r.stdout) as { status: string; usage: Record<string, unknown> };
    expect(out.status).toBe('cancelled');
    expect(out.usage).toMatchObject({
      cost_usd: stop.spent,
      cap_enforced: true,
      capped: { cap: 'cost', limit: cap, spent: stop.spent, expected: stop.expected },
    });
    expect(stop.spent).toBeLessThanOrEqual(cap);
    expect(r.stderr).toMatch(
      /^nsed: stopped at the cost cap of \$0\.025 \(\$[\d.]+ spent, and the next round was expected to cost \$[\d.]+\): deliberation \S+ was cancelled/m,
    );
    const session = await rig.session<Session>(String((JSON.parse(r.stdout) as { session: string }).session));
    expect(session.turns.find((t) => t.role === 'assistant')?.capped).toEqual({
      cap: 'cost',
      limit: cap,
      spent: stop.spent,
      expected: stop.expected,
    });
  });

  it('--max-tokens does the same with the tokens of the rounds so far (tokens are never estimated, so the first round always runs)', async () => {
    const rig = await testRig({ hold: true });
    const cap = 15000;
    const run = rig.start(['ask', '-o', 'json', '--max-tokens', String(cap), '-p', 'deep', 'Design a cache'], {
      clock: boundariesOnly(),
    });
    const job = await rig.sim.control.nextJob();
    const stop = await roundByRound(rig, job, tokensOf, cap, (s, n) => Math.ceil(s / n));
    expect(stop.rounds).toBeGreaterThan(1);
    const r = await run.result;
    expect(r.code, r.stderr).toBe(15);
    expect(rig.sim.control.job(job)).toMatchObject({ phases: 2 * stop.rounds, ended: true });
    const out = JSON.parse(r.stdout) as { usage: Record<string, unknown> };
    expect(out.usage).toMatchObject({
      cap_enforced: true,
      capped: { cap: 'tokens', limit: cap, spent: stop.spent, expected: stop.expected },
    });
    expect(r.stderr).toContain(
      `stopped at the token cap of ${cap} (${stop.spent} used, and the next round was expected to use ${stop.expected})`,
    );
  });

  it('a cost cap below the first round’s estimate starts nothing: exit 15, no request sent', async () => {
    const rig = await testRig();
    const r = await rig.run(['ask', '--max-cost', '0.005', '-p', 'deep', 'Design a cache']);
    expect(r.code).toBe(15);
    expect(r.stderr).toMatch(
      /^nsed: not started: its first round is expected to cost \$0\.02 at the prices GET \/agents lists, over the cost cap of \$0\.005$/m,
    );
    expect(rig.sim.requests.filter((q) => q.method === 'POST')).toEqual([]);
    expect((await rig.run(['sessions', 'ls', '--json'])).stdout.trim()).toBe('[]');
  });
});

/** Three items of one batch, in a folder removed when the test ends. */
async function threeItems(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'nsed-ceiling-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'items.jsonl');
  await writeFile(
    file,
    ['a', 'b', 'c'].map((id) => JSON.stringify({ id, prompt: `Design cache ${id}` })).join('\n') + '\n',
  );
  return file;
}

describe("a batch's total cap is a ceiling too (reliability #233, #242)", () => {
  it('--max-cost: the item that would cross the total is cancelled before that round, and the rest are skipped', async () => {
    // Tokens and no dollars: the cost is the tokens at the highest listed prices ($3 in, $15 out per million).
    const rig = await testRig({ hold: true, faults: ['all:meter=tokens'] });
    const cap = 0.101;
    const run = rig.start(['batch', await threeItems(), '-j', '1', '-p', 'deep', '--max-cost', String(cap)], {
      clock: boundariesOnly(),
    });
    const job = await rig.sim.control.nextJob();
    const priced = (b: Budget): number => round8((b.total_input_tokens * 3 + b.total_output_tokens * 15) / 1e6);
    const stop = await roundByRound(rig, job, priced, cap, (s, n) => round8(s / n));
    const r = await run.result;
    expect(r.code, r.stderr).toBe(15);
    expect(rig.sim.control.job(job)).toMatchObject({ phases: 2 * stop.rounds, ended: true });
    const lines = resultLines(r.stdout);
    expect(lines.map((l) => [l['id'], l['status']])).toEqual([
      ['a', 'cancelled'],
      ['b', 'skipped'],
      ['c', 'skipped'],
    ]);
    expect(lines[0]).toMatchObject({ exit_code: 15, usage: { cost_usd: stop.spent }, error: { code: 'cost_cap' } });
    expect((lines[0]!['error'] as { message: string }).message).toContain('and the next round was expected to cost');
    expect(rig.sim.control.stats().started).toBe(1);
    expect(r.stderr).toContain(`of the $0.1 cost cap spent`);
  });

  it('--max-tokens: the same with the tokens of the rounds so far', async () => {
    const rig = await testRig({ hold: true });
    const cap = 15000;
    const run = rig.start(['batch', await threeItems(), '-j', '1', '-p', 'deep', '--max-tokens', String(cap)], {
      clock: boundariesOnly(),
    });
    const job = await rig.sim.control.nextJob();
    const stop = await roundByRound(rig, job, tokensOf, cap, (s, n) => Math.ceil(s / n));
    const r = await run.result;
    expect(r.code, r.stderr).toBe(15);
    expect(rig.sim.control.job(job)).toMatchObject({ phases: 2 * stop.rounds, ended: true });
    const lines = resultLines(r.stdout);
    expect(lines.map((l) => l['status'])).toEqual(['cancelled', 'skipped', 'skipped']);
    expect(lines[0]).toMatchObject({ exit_code: 15, error: { code: 'cost_cap' } });
    expect(r.stderr).toContain(`${stop.spent} of ${cap} tokens used`);
  });
});

describe('a cap that cannot act is said (reliability #234)', () => {
  it('--max-cost with --allow-unmetered on a server that lists no prices: one warning line, usage.cap_enforced false, exit 0', async () => {
    const rig = await testRig({ profile: 'strict' });
    const r = await rig.run([
      'ask',
      '-o',
      'json',
      '--max-cost',
      '0.0001',
      '--allow-unmetered',
      '-p',
      'fast',
      'Design a cache',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([
      'nsed: warning: --max-cost 0.0001 cannot be enforced: the server lists no prices for its agents (GET /agents); the deliberation runs without it, as --allow-unmetered asks',
    ]);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'complete', usage: { cap_enforced: false, capped: null } });
  });

  it('--max-tokens with --allow-unmetered on a server that reports no usage: one warning line, usage.cap_enforced false', async () => {
    const rig = await testRig({ faults: ['all:meter=none'] });
    const r = await rig.run([
      'ask',
      '-o',
      'json',
      '--max-tokens',
      '100',
      '--allow-unmetered',
      '-p',
      'fast',
      'Design a cache',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^nsed: warning: --max-tokens 100 cannot be enforced: .*; it runs on without the cap$/);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'complete', usage: { cap_enforced: false, capped: null } });
  });

  it('a cap that could act says nothing and reports cap_enforced true', async () => {
    const rig = await testRig();
    const r = await rig.run(['ask', '-o', 'json', '--max-cost', '5', '-p', 'fast', 'Design a cache']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ usage: { cap_enforced: true, capped: null } });
  });
});

describe('a meter that is late or not believable falls back to the estimate, and says so (reliability #235)', () => {
  /**
   * Each server below would have let the whole deliberation run under a $0.025 cap. With the
   * fallback, round 1 counts at its estimate ($0.02 for -p deep), round 2 would take it past the
   * cap, so the client cancels at the first boundary.
   */
  const cases: Array<[string, string[], { lateMeter?: boolean }, RegExp]> = [
    [
      'a /budget that answers only after its bound',
      ['all:budget=stall'],
      { lateMeter: true },
      /GET \/deliberation\/\{id\}\/budget did not answer within 4 s/,
    ],
    ['a /budget that reports negative totals', ['all:meter-figures=negative'], {}, /reports total_input_tokens -\d+/],
    [
      'token counts that are negative (no dollars reported)',
      ['all:meter=tokens', 'all:meter-figures=negative'],
      {},
      /reports total_input_tokens -\d+/,
    ],
    [
      'token counts sent as strings',
      ['all:meter=tokens', 'all:meter-figures=string'],
      {},
      /reports total_input_tokens "\d+"/,
    ],
    ['token counts of "NaN"', ['all:meter=tokens', 'all:meter-figures=nan'], {}, /reports total_input_tokens "NaN"/],
    [
      'token counts of 0 after a round ran',
      ['all:meter=tokens', 'all:meter-figures=zero'],
      {},
      /reports 0 tokens after 1 round/,
    ],
  ];
  for (const [name, faults, clock, doubt] of cases) {
    it(`${name}: cancelled before round 2 on the estimate (reliability #235)`, async () => {
      const rig = await testRig({ hold: true, faults });
      const run = rig.start(['ask', '-o', 'json', '--max-cost', '0.025', '-p', 'deep', 'Design a cache'], {
        clock: boundariesOnly(clock),
      });
      const job = await rig.sim.control.nextJob();
      // A read whose bound passed at once may be cut before it reaches the simulator: nothing to wait for.
      if (clock.lateMeter !== true) await rig.sim.control.budgetReads(job, 1);
      rig.sim.control.release(job, 2);
      const r = await run.result;
      expect(r.code, r.stderr).toBe(15);
      expect(rig.sim.control.job(job)).toMatchObject({ phases: 2, ended: true });
      expect(cancels(rig, job)).toHaveLength(1);
      const warnings = r.stderr.split('\n').filter((l) => l.startsWith('nsed: warning:'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(doubt);
      expect(warnings[0]).toMatch(
        /the cost cap acts on the estimate, \$0\.02 a round at the prices GET \/agents lists instead$/,
      );
      const out = JSON.parse(r.stdout) as { usage: Record<string, unknown> };
      expect(out.usage).toMatchObject({
        cost_source: 'estimated',
        cap_enforced: true,
        capped: { cap: 'cost', limit: 0.025, spent: 0.0201, expected: 0.0201 },
      });
    });
  }

  it('a reported cost of $0 while /agents lists prices: the tokens are priced at the listed prices, never taken as free (reliability #235)', async () => {
    const rig = await testRig({ hold: true, faults: ['all:meter-figures=free'] });
    const run = rig.start(['ask', '-o', 'json', '--max-cost', '0.025', '-p', 'deep', 'Design a cache'], {
      clock: boundariesOnly(),
    });
    const job = await rig.sim.control.nextJob();
    await rig.sim.control.budgetReads(job, 1);
    rig.sim.control.release(job, 2);
    await rig.sim.control.budgetReads(job, 2);
    const b = await budgetOf(rig, job);
    expect(b.estimated_cost_usd).toBe(0);
    const r = await run.result;
    expect(r.code, r.stderr).toBe(15);
    expect(rig.sim.control.job(job)).toMatchObject({ phases: 2, ended: true });
    // The highest prices the simulator lists: $3 in and $15 out per million tokens.
    const priced = round8((b.total_input_tokens * 3 + b.total_output_tokens * 15) / 1e6);
    expect(priced).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/reports \$0 for \d+ tokens of 1 round, while GET \/agents lists prices/);
    expect(r.stderr).toMatch(/the cost cap acts on the tokens priced at the highest prices GET \/agents lists instead/);
    const out = JSON.parse(r.stdout) as { usage: Record<string, unknown> };
    expect(out.usage).toMatchObject({ cost_usd: priced, capped: { cap: 'cost', spent: priced } });
  });

  it('a token cap whose token counts cannot be believed cannot act: one warning, cap_enforced false, the deliberation runs on (reliability #234, #235)', async () => {
    const rig = await testRig({ faults: ['all:meter-figures=nan'] });
    const r = await rig.run(['ask', '-o', 'json', '--max-tokens', '5000', '-p', 'balanced', 'Design a cache']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^nsed: warning: --max-tokens 5000 cannot be enforced: GET \/deliberation\/\{id\}\/budget reports total_input_tokens "NaN"/,
    );
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'complete', usage: { cap_enforced: false, capped: null } });
  });
});
