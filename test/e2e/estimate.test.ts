// `--estimate` on ask, continue, fork and batch against the simulator over real HTTP: the range
// from the simulator's own prices and policies, sent nothing, and unknown (null, never 0) where
// the server lists no prices or no council (docs/reliability.md #240, #241).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS, costPerRound, DEFAULT_COUNCIL } from '../../src/sim/agents.js';
import { defaultPolicies } from '../../src/sim/policies.js';
import { testRig, type Rig } from '../harness/rig.js';
import { resultLines, useBatchRig } from '../harness/batch-rig.js';

const batch = useBatchRig('estimate');

/** The simulator's own price of one round of these agents (`/agents` estimated_cost_per_round). */
const perRound = (ids: readonly string[]): number =>
  Math.round(
    ids.reduce((sum, id) => {
      const a = AGENTS.find((x) => x.agent_id === id);
      if (a === undefined) throw new Error(`no simulated agent ${id}`);
      return sum + costPerRound(a.price);
    }, 0) * 1e8,
  ) / 1e8;

const policy = (name: string) => {
  const p = defaultPolicies().find((x) => x.name === name);
  if (p === undefined) throw new Error(`no simulated policy ${name}`);
  return p;
};

/** Every request that was not a read: an estimate sends none. */
const writes = (r: Rig): string[] =>
  r.sim.requests.filter((q) => q.method !== 'GET').map((q) => `${q.method} ${q.path}`);

const sessionFiles = async (home: string): Promise<string[]> =>
  readdir(join(home, 'sessions')).then(
    (names) => names.filter((n) => n.endsWith('.json')),
    () => [],
  );

const json = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

const cost = (n: number | null) => ({
  input_tokens: null,
  output_tokens: null,
  cost_usd: n,
  cost_source: n === null ? 'unknown' : 'estimated',
});

describe('ask --estimate (reliability #241)', () => {
  it("prices the default policy's council from /agents: 1 round at least, its max_rounds at most; sends nothing, saves nothing, exit 0", async () => {
    const before = batch.rig.sim.requests.length;
    const balanced = policy('balanced');
    const r = await batch.rig.run(['ask', '--estimate', '-o', 'json', 'Design a cache']);
    expect(r.code, r.stderr).toBe(0);
    const e = json(r.stdout);
    const one = perRound(DEFAULT_COUNCIL);
    expect(e).toMatchObject({
      policy: 'nsed:*',
      path: 'compat',
      council: [...DEFAULT_COUNCIL],
      rounds: { min: 1, max: balanced.max_rounds },
      cost_per_round_usd: one,
      low: cost(one),
      high: cost(Math.round(one * balanced.max_rounds * 1e8) / 1e8),
    });
    expect((e['agents'] as unknown[])[0]).toEqual({
      agent_id: 'CortexA',
      cost_per_round_usd: costPerRound(AGENTS[0]!.price),
      input_price_per_mtok: AGENTS[0]!.price.input_price_per_mtok,
      output_price_per_mtok: AGENTS[0]!.price.output_price_per_mtok,
    });
    expect((e['assumes'] as string[]).join('\n')).toMatch(
      /converges early.*at most 3 \(policy balanced's max_rounds\)/,
    );
    expect(writes(batch.rig)).toEqual([]);
    expect(
      batch.rig.sim.requests
        .slice(before)
        .map((q) => q.path)
        .sort(),
    ).toEqual(['/agents', '/policies']);
    expect(await sessionFiles(batch.rig.home)).toEqual([]);
  });

  it('text: the range, each agent a round, what it assumes, and that nothing was sent', async () => {
    const r = await batch.rig.run(['ask', '--estimate', '-p', 'deep', 'Design a cache']);
    expect(r.code, r.stderr).toBe(0);
    const one = perRound(DEFAULT_COUNCIL);
    expect(r.stdout).toContain(`estimate for nsed:deep (compat): $${one.toPrecision(2).replace(/0+$/, '')} to $`);
    expect(r.stdout).toContain('1 to 5 rounds of CortexA, CortexB, CortexC');
    expect(r.stdout).toMatch(/^ {2}CortexC +\$0\.015 a round$/m);
    expect(r.stdout).toMatch(/^assumes:\n {2}- the council is CortexA, CortexB, CortexC \(policy deep\)$/m);
    expect(r.stdout.trimEnd().endsWith('nothing was sent')).toBe(true);
    expect(writes(batch.rig)).toEqual([]);
  });

  it('--agents and --rounds choose the council and its most rounds, as the native request would', async () => {
    const r = await batch.rig.run([
      'ask',
      '--estimate',
      '-o',
      'json',
      '--agents',
      'CortexA,CortexD',
      '--rounds',
      '4',
      'x',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const one = perRound(['CortexA', 'CortexD']);
    expect(json(r.stdout)).toMatchObject({
      path: 'native',
      council: ['CortexA', 'CortexD'],
      rounds: { min: 1, max: 4 },
      low: cost(one),
      high: cost(Math.round(one * 4 * 1e8) / 1e8),
    });
    expect(writes(batch.rig)).toEqual([]);
  });

  it('a plain model (-m) has no council nsed knows: cost unknown (null), never 0, exit 0', async () => {
    const r = await batch.rig.run(['ask', '--estimate', '-o', 'json', '-m', 'llama3.2', 'x']);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({
      council: null,
      rounds: null,
      cost_per_round_usd: null,
      low: cost(null),
      high: cost(null),
    });
  });
});

describe('continue and fork --estimate (reliability #241)', () => {
  it("price the next turn with the session's recorded council, or the policy this turn names; nothing sent or saved", async () => {
    const started = await batch.rig.run([
      'ask',
      '-o',
      'final',
      '--agents',
      'CortexB,CortexC',
      '--rounds',
      '2',
      'Design a queue',
    ]);
    expect(started.code, started.stderr).toBe(0);
    const [file] = await sessionFiles(batch.rig.home);
    const id = String(file).replace(/\.json$/, '');
    const posts = writes(batch.rig).length;
    const recorded = JSON.stringify(await batch.rig.session(id));

    const next = await batch.rig.run(['continue', '-s', id, '--estimate', '-o', 'json', 'and for writes?']);
    expect(next.code, next.stderr).toBe(0);
    const one = perRound(['CortexB', 'CortexC']);
    expect(json(next.stdout)).toMatchObject({
      path: 'native',
      council: ['CortexB', 'CortexC'],
      rounds: { min: 1, max: 2 },
      high: cost(Math.round(one * 2 * 1e8) / 1e8),
    });
    const fast = await batch.rig.run(['continue', '-s', id, '--estimate', '-o', 'json', '-p', 'fast']);
    expect(json(fast.stdout)).toMatchObject({
      policy: 'nsed:fast',
      council: [...DEFAULT_COUNCIL],
      rounds: { min: 1, max: 1 },
    });

    const forked = await batch.rig.run(['fork', id, '--estimate', '-o', 'json', '--rounds', '5', 'try Redis']);
    expect(forked.code, forked.stderr).toBe(0);
    expect(json(forked.stdout)).toMatchObject({ council: ['CortexB', 'CortexC'], rounds: { min: 1, max: 5 } });

    expect(writes(batch.rig)).toHaveLength(posts);
    expect(await sessionFiles(batch.rig.home)).toHaveLength(1);
    expect(JSON.stringify(await batch.rig.session(id))).toBe(recorded);
  });
});

describe('batch --estimate (reliability #241)', () => {
  it('each item with its own policy, agents or rounds, and the total; an unknown item is counted apart, never as 0', async () => {
    const items = await batch.file(
      'items.jsonl',
      [
        '{"id":"a","prompt":"x"}',
        '{"id":"b","prompt":"y","policy":"deep"}',
        '{"id":"c","prompt":"z","agents":["CortexA","CortexD"],"rounds":2}',
        '{"id":"d","prompt":"w","model":"llama3.2"}',
        '',
      ].join('\n'),
    );
    const posts = writes(batch.rig).length;
    const r = await batch.rig.run(['batch', items, '--estimate', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const e = json(r.stdout) as {
      items: { id: string; estimate: Record<string, unknown> }[];
      total: Record<string, unknown>;
    };
    const three = perRound(DEFAULT_COUNCIL);
    const two = perRound(['CortexA', 'CortexD']);
    expect(e.items.map((i) => [i.id, (i.estimate['high'] as { cost_usd: unknown }).cost_usd])).toEqual([
      ['a', Math.round(three * 3 * 1e8) / 1e8],
      ['b', Math.round(three * 5 * 1e8) / 1e8],
      ['c', Math.round(two * 2 * 1e8) / 1e8],
      ['d', null],
    ]);
    const sum = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) * 1e8) / 1e8;
    expect(e.total).toEqual({
      low: {
        input_tokens: null,
        output_tokens: null,
        cost_usd: sum([three, three, two]),
        unknown_cost_turns: 1,
        turns: 4,
      },
      high: {
        input_tokens: null,
        output_tokens: null,
        cost_usd: sum([three * 3, three * 5, two * 2].map((n) => Math.round(n * 1e8) / 1e8)),
        unknown_cost_turns: 1,
        turns: 4,
      },
    });
    expect(writes(batch.rig)).toHaveLength(posts);

    const text = await batch.rig.run(['batch', items, '--estimate']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /^item b: \$0\.02 to \$0\.1 \(estimated\): 1 to 5 rounds of CortexA, CortexB, CortexC$/m,
    );
    expect(text.stdout).toMatch(/^item d: cost unknown: rounds unknown of an unknown council$/m);
    expect(text.stdout).toMatch(/^total for 4 items: .* \(1 item of unknown cost, not in the sum\)$/m);
    expect(resultLines(text.stdout).filter((l) => 'status' in l)).toEqual([]);
    expect(writes(batch.rig)).toHaveLength(posts);
  });
});

describe('unknown prices (reliability #240)', () => {
  it('a server that reports no cost (meter=none) lists no prices: the estimate is unknown, null and never $0, exit 0', async () => {
    batch.rig.sim.setFaults(['all:meter=none']);
    try {
      const r = await batch.rig.run(['ask', '--estimate', '-o', 'json', 'x']);
      expect(r.code, r.stderr).toBe(0);
      const e = json(r.stdout);
      expect(e).toMatchObject({
        council: [...DEFAULT_COUNCIL],
        cost_per_round_usd: null,
        low: cost(null),
        high: cost(null),
      });
      expect((e['agents'] as { cost_per_round_usd: unknown }[]).map((a) => a.cost_per_round_usd)).toEqual([
        null,
        null,
        null,
      ]);
      expect((e['assumes'] as string[]).join('\n')).toContain(
        'GET /agents lists no estimated_cost_per_round for CortexA, CortexB, CortexC',
      );
      const text = await batch.rig.run(['ask', '--estimate', 'x']);
      expect(text.stdout).toMatch(
        /^estimate for nsed:\* \(compat\): cost unknown: 1 to 3 rounds of CortexA, CortexB, CortexC$/m,
      );
      expect(text.stdout).not.toContain('$0');
    } finally {
      batch.rig.sim.setFaults([]);
    }
  });

  it('--profile strict names no policy council and lists no prices: unknown, and --agents names the council but not its price', async () => {
    {
      const strict = await testRig({ profile: 'strict' });
      const r = await strict.run(['ask', '--estimate', '-o', 'json', '-p', 'deep', 'x']);
      expect(r.code, r.stderr).toBe(0);
      const e = json(r.stdout);
      expect(e).toMatchObject({ council: null, rounds: { min: 1, max: 5 }, low: cost(null), high: cost(null) });
      expect((e['assumes'] as string[]).join('\n')).toContain("does not name policy deep's agents");
      const named = await strict.run(['ask', '--estimate', '-o', 'json', '--agents', 'CortexA,CortexB', 'x']);
      expect(json(named.stdout)).toMatchObject({
        council: ['CortexA', 'CortexB'],
        cost_per_round_usd: null,
        high: cost(null),
      });
      expect(writes(strict)).toEqual([]);
    }
  });
});
