import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Session } from '../../src/session/model.js';
import type { SimOptions } from '../../src/sim/server.js';
import { parseNdjson, testRig, type Rig } from '../harness/rig.js';

/**
 * Spend caps (docs/ci.md "Spend caps", docs/reliability.md #230-#232): a deliberation whose live
 * usage crosses --max-cost or --max-tokens is cancelled on the orchestrator and recorded with
 * the verdict it had reached (exit 15); a cap the server cannot meter is refused before anything
 * is sent. The simulator holds each job, and its `meter=runaway` fault makes round 2 cost fifty
 * times round 1, so the cap is crossed while the job is parked: nothing races the watch.
 */

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const posts = (r: Rig) => r.sim.requests.filter((q) => q.method === 'POST');
const cancels = (r: Rig, job: string) =>
  r.sim.requests.filter((q) => q.method === 'POST' && q.path === `/deliberation/${job}/cancel`);

/** Lets round 1 run (about $0.008 in the sim), then round 2's proposals (at least $0.04 under runaway), and leaves the job parked. */
async function runIntoRound2(r: Rig, job: string): Promise<void> {
  r.sim.control.release(job, 3);
  await r.sim.control.phases(job, 3);
  await r.sim.control.parked(job);
}

const PATHS = [
  ['the compat chat path', ['-p', 'deep']],
  ['the native /deliberation path', ['--agents', 'CortexA,CortexB', '--rounds', '3']],
] as const;

describe('a spend cap crossed mid-deliberation (reliability #230)', () => {
  for (const [name, council] of PATHS) {
    it(`cancels the deliberation, keeps its verdict and exits 15, on ${name} (reliability #230)`, async () => {
      const rig = await testRig({ hold: true, faults: ['all:meter=runaway'] });
      // Above the first round's estimate ($0.02 for -p deep), so the deliberation starts.
      const run = rig.start(['ask', '-o', 'ndjson', '--max-cost', '0.03', ...council, 'Design a cache']);
      const job = await rig.sim.control.nextJob();
      await runIntoRound2(rig, job);
      const r = await run.result;
      expect(r.code).toBe(15);
      // The orchestrator was told to stop, once.
      expect(cancels(rig, job)).toHaveLength(1);
      expect(await rig.sim.control.ended(job)).toMatchObject({ ended: true });
      const events = parseNdjson(r.stdout);
      expect(events.filter((e) => e['type'] === 'error' || e['type'] === 'finish')).toHaveLength(1);
      const last = events.at(-1) ?? {};
      expect(last).toMatchObject({ type: 'error', code: 'cost_cap', exit_code: 15, status: 'cancelled' });
      // The figures that crossed the cap are the usage the error carries, and were an event of their own.
      const usage = last['usage'] as { cost_usd: number };
      expect(usage.cost_usd).toBeGreaterThanOrEqual(0.03);
      expect(events.some((e) => e['type'] === 'usage')).toBe(true);
      // The verdict it had reached: round 1 was scored.
      const verdict = last['verdict'] as { rounds: { completed: number } };
      expect(verdict.rounds.completed).toBeGreaterThanOrEqual(1);
      expect(r.stderr).toMatch(
        /^nsed: stopped at the cost cap of \$0\.03 \(\$[\d.]+ spent\): deliberation \S+ was cancelled/m,
      );
      const session = await rig.session<Session>(String(last['session'] ?? events[0]?.['session']));
      const turn = session.turns.find((t) => t.role === 'assistant');
      expect(session.pending_job).toBeUndefined();
      expect(turn).toMatchObject({ status: 'cancelled', job_id: job, capped: { cap: 'cost', limit: 0.03 } });
      expect(turn?.verdict?.rounds.completed).toBe(verdict.rounds.completed);
      expect(turn?.usage?.cost_usd).toBe(usage.cost_usd);
    });
  }

  it('a token cap stops it the same way, and -o json says so in its object (reliability #230)', async () => {
    const rig = await testRig({ hold: true, faults: ['all:meter=runaway'] });
    const run = rig.start(['ask', '-o', 'json', '--max-tokens', '20000', '-p', 'deep', 'Design a cache']);
    const job = await rig.sim.control.nextJob();
    await runIntoRound2(rig, job);
    const r = await run.result;
    expect(r.code).toBe(15);
    expect(cancels(rig, job)).toHaveLength(1);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ status: 'cancelled', job_id: job, error: { code: 'cost_cap', exit_code: 15 } });
    const usage = out['usage'] as { input_tokens: number; output_tokens: number };
    expect(usage.input_tokens + usage.output_tokens).toBeGreaterThanOrEqual(20000);
    expect(r.stderr).toMatch(/stopped at the token cap of 20000/);
  });
});

describe('a cap the server cannot meter (reliability #231)', () => {
  const unmetered: Array<[string, SimOptions]> = [
    ['a server that reports no usage (meter=none)', { faults: ['all:meter=none'] }],
    ['a server that lists no prices (--profile strict)', { profile: 'strict' }],
  ];
  for (const [name, opts] of unmetered) {
    it(`is refused before any request on ${name} (reliability #231)`, async () => {
      const rig = await testRig(opts);
      const r = await rig.run(['ask', '-o', 'ndjson', '--max-cost', '1', '-p', 'fast', 'x']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^nsed: --max-cost cannot be enforced: .* lists no prices for its agents/m);
      expect(r.stderr).toMatch(/^hint: --allow-unmetered/m);
      expect(posts(rig)).toEqual([]);
      // Nothing is left behind: no session was created for a turn that was never sent.
      expect((await rig.run(['sessions', 'ls', '--json'])).stdout.trim()).toBe('[]');
    });
  }

  it('continue and fork refuse it the same way, and the session keeps only the turns it had (reliability #231)', async () => {
    const rig = await testRig({ profile: 'strict' });
    const first = await rig.run(['ask', '-o', 'json', '-p', 'fast', 'first question']);
    expect(first.code).toBe(0);
    const session = String((JSON.parse(first.stdout) as { session: string }).session);
    const sent = posts(rig).length;
    for (const args of [
      ['continue', '-s', session, '--max-cost', '1', 'more'],
      ['fork', session, '--max-tokens', '100', 'another way'],
    ]) {
      const r = await rig.run(args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/cannot be enforced/);
    }
    expect(posts(rig)).toHaveLength(sent);
    expect((await rig.session<Session>(session)).turns).toHaveLength(2);
    // The fork that was never sent is not left behind either.
    expect(JSON.parse((await rig.run(['sessions', 'ls', '--json'])).stdout)).toHaveLength(1);
  });

  it('--no-stream is refused with a cap: its deliberation may be named only when it ends (reliability #231)', async () => {
    const rig = await testRig();
    const r = await rig.run(['ask', '--no-stream', '--max-cost', '1', '-p', 'fast', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^nsed: --max-cost cannot be enforced with --no-stream/m);
    expect(posts(rig)).toEqual([]);
  });

  it('--allow-unmetered runs it anyway (reliability #231)', async () => {
    const rig = await testRig({ faults: ['all:meter=none'] });
    const r = await rig.run(['ask', '-o', 'json', '--max-cost', '1', '--allow-unmetered', '-p', 'fast', 'x']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'complete', usage: { cost_usd: null } });
  });

  it('the config key and the environment variable set the cap as the flag does (reliability #231)', async () => {
    const rig = await testRig({ profile: 'strict' });
    dir = await mkdtemp(join(tmpdir(), 'nsed-caps-'));
    const config = join(dir, 'config.json');
    await writeFile(config, JSON.stringify({ max_cost: 0.5 }));
    const fromConfig = await rig.run(['ask', '-p', 'fast', 'x'], { env: { NSED_CONFIG: config } });
    expect(fromConfig.code).toBe(2);
    expect(fromConfig.stderr).toMatch(/--max-cost cannot be enforced/);
    const fromEnv = await rig.run(['ask', '-p', 'fast', 'x'], { env: { NSED_MAX_TOKENS: '5000' } });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toMatch(/--max-tokens cannot be enforced/);
    expect(posts(rig)).toEqual([]);
  });

  it('a bad cap is one usage line, whatever it came from, and nothing is sent (reliability #231)', async () => {
    const rig = await testRig();
    for (const [args, env, line] of [
      [['--max-cost', '-1'], {}, /^nsed: --max-cost must be a positive number of dollars/m],
      [['--max-tokens', '1.5'], {}, /^nsed: --max-tokens must be a positive whole number of tokens/m],
      [[], { NSED_MAX_COST: 'lots' }, /^nsed: NSED_MAX_COST must be a positive number of dollars/m],
    ] as const) {
      const r = await rig.run(['ask', ...args, '-p', 'fast', 'x'], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(line);
    }
    expect(posts(rig)).toEqual([]);
  });
});

describe('a server whose /budget is missing (reliability #232)', () => {
  it('says once that the cost cap falls back to the estimate, and the turn completes (reliability #232, #235)', async () => {
    const rig = await testRig({ hold: true, faults: ['budget=404'] });
    const run = rig.start(['ask', '-o', 'final', '--max-cost', '5', '-p', 'fast', 'x']);
    const job = await rig.sim.control.nextJob();
    await run.output((o) => o.includes('reports no live usage'));
    rig.sim.control.release(job);
    const r = await run.result;
    expect(r.code).toBe(0);
    expect(r.stderr.match(/reports no live usage/g)).toHaveLength(1);
    expect(r.stderr).toMatch(
      /the cost cap acts on the estimate, \$0\.02 a round at the prices GET \/agents lists instead/,
    );
    expect(cancels(rig, job)).toEqual([]);
  });
});
