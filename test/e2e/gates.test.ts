import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openFileStore } from '../../src/session/file-store.js';
import type { CouncilVerdict, GateName } from '../../src/council/verdict.js';
import { startRewritingProxy } from '../harness/rewriting-proxy.js';
import { makeRig, parseNdjson, type Rig, useRig } from '../harness/rig.js';

// The verdict as data, gates on it (exit 12 failed, 13 inconclusive) and `nsed gate`,
// against the simulator over real HTTP. Thresholds come from an ungated run of the same question
// (the simulator is deterministic per seed and question), so no test depends on its numbers.

const QUESTION = 'Design a cache';
const NATIVE = ['--agents', 'CortexA,CortexB,CortexC'];

const rig = useRig();

interface JsonTurn {
  session: string;
  turn: string;
  job_id: string | null;
  status: string;
  content: string;
  verdict: CouncilVerdict | null;
  gate: {
    status: string;
    checks: Array<{ name: string; expected: number; actual: number | null; status: string }>;
  } | null;
  error: { code: string; exit_code: number; message: string } | null;
}

async function askJson(r: Rig, args: string[]): Promise<{ code: number; json: JsonTurn; stderr: string }> {
  const run = await r.run(['ask', '-o', 'json', ...args]);
  const lines = run.stdout.trim().split('\n');
  expect(lines, run.stderr).toHaveLength(1);
  return { code: run.code, json: JSON.parse(run.stdout) as JsonTurn, stderr: run.stderr };
}

function actualOf(v: CouncilVerdict, name: (typeof GATES)[number]): number {
  const value = {
    'min-convergence': v.convergence.final,
    'max-wrong': v.claims?.chosen_counts?.wrong,
    'max-contested': v.claims?.chosen_counts?.contested,
    'min-score': v.chosen?.score,
    'min-margin': v.margin,
  }[name];
  if (typeof value !== 'number') throw new Error(`the simulator reported no ${name}`);
  return value;
}

/** A threshold the value fails: just above a minimum, one below a maximum. */
const failing = (name: GateName, actual: number): number =>
  name.startsWith('min-') ? Math.round((actual + 0.01) * 100) / 100 : actual - 1;

const GATES = [
  'min-convergence',
  'max-wrong',
  'max-contested',
  'min-score',
  'min-margin',
] as const satisfies readonly GateName[];

describe.each([
  ['compat (the default path)', [] as string[]],
  ['native (--agents)', NATIVE],
])('gates on the %s', (_path, extra) => {
  let verdict: CouncilVerdict;
  beforeAll(async () => {
    const first = await askJson(rig, [...extra, QUESTION]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json.gate).toBeNull();
    verdict = first.json.verdict as CouncilVerdict;
  });

  it('the verdict comes from the rounds and the milestones: every value reported', () => {
    expect(verdict).toMatchObject({ v: 2, rounds: { completed: 3, planned: 3 }, chosen: { source: 'last_round' } });
    expect(verdict.convergence.per_round?.map((c) => c.round)).toEqual([1, 2, 3]);
    for (const name of GATES) expect(typeof actualOf(verdict, name)).toBe('number');
    // Not vacuous: the question was chosen so that the chosen proposal has wrong and contested claims.
    expect(actualOf(verdict, 'max-wrong')).toBeGreaterThan(0);
    expect(actualOf(verdict, 'max-contested')).toBeGreaterThan(0);
  });

  it('every gate at its actual value passes: exit 0, all five checks in the json and the store', async () => {
    const flags = GATES.flatMap((name) => [`--${name}`, String(actualOf(verdict, name))]);
    const r = await askJson(rig, [...extra, ...flags, QUESTION]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.gate?.status).toBe('pass');
    expect(r.json.gate?.checks.map((c) => [c.name, c.status])).toEqual(GATES.map((n) => [n, 'pass']));
    expect(r.json.error).toBeNull();
    // The recorded verdict with its ballots, which are kept beside the transcript (docs/history.md).
    const stored = await openFileStore(rig.home).read(r.json.session, { rounds: true });
    expect(stored.turns.at(-1)?.gate).toEqual(r.json.gate);
    expect(stored.turns.at(-1)?.verdict).toEqual(r.json.verdict);
  });

  it.each(GATES)('--%s failing: the answer is printed and recorded, stderr names it, exit 12', async (name) => {
    const actual = actualOf(verdict, name);
    const expected = failing(name, actual);
    const r = await rig.run(['ask', ...extra, `--${name}`, String(expected), QUESTION]);
    expect(r.code).toBe(12);
    expect(r.stdout).toMatch(/^## Design a cache/);
    const bound = name.startsWith('min-') ? 'at least' : 'at most';
    expect(r.stderr).toContain(`nsed: gate ${name} failed: `);
    expect(r.stderr).toContain(` ${actual}, expected ${bound} ${expected}\n`);
    expect(r.stderr).toMatch(/^nsed: the council's verdict failed 1 of 1 gate$/m);
    expect(r.stderr).toMatch(/^hint: the answer is printed and recorded; judge it again with 'nsed gate -s \S+'$/m);
    const id = /nsed gate -s (\S+)'/.exec(r.stderr)?.[1] ?? '';
    const stored = await rig.session<{ turns: Array<{ status: string; content: string; gate?: { status: string } }> }>(
      id,
    );
    expect(stored.turns.at(-1)).toMatchObject({ status: 'complete', gate: { status: 'fail' } });
    expect(stored.turns.at(-1)?.content).toBe(r.stdout.replace(/\n$/, ''));
  });
});

describe('NDJSON: the verdict event before finish, and the gate on finish (never an error event)', () => {
  it('a failed gate still ends with finish, carrying verdict and gate; the exit code says it', async () => {
    const r = await rig.run(['ask', '-o', 'ndjson', '--min-score', '1', QUESTION]);
    expect(r.code).toBe(12);
    const events = parseNdjson(r.stdout);
    expect(events.map((e) => e['type']).slice(-2)).toEqual(['verdict', 'finish']);
    expect(events.some((e) => e['type'] === 'error')).toBe(false);
    const [verdict, finish] = events.slice(-2);
    expect(finish?.['verdict']).toEqual(verdict?.['verdict']);
    expect(finish?.['gate']).toMatchObject({
      status: 'fail',
      checks: [{ name: 'min-score', expected: 1, status: 'fail' }],
    });
  });

  it('an error event carries verdict, gate (null) and the recorded status', async () => {
    rig.sim.setFaults(['fail-at-round=2']);
    try {
      const r = await rig.run(['ask', '-o', 'ndjson', '--min-score', '0', QUESTION]);
      expect(r.code).toBe(5);
      const last = parseNdjson(r.stdout).at(-1);
      expect(last).toMatchObject({ type: 'error', code: 'server', gate: null, status: 'failed' });
      // What was reported before the failure: round 1 was scored, so the verdict says so.
      expect(last?.['verdict']).toMatchObject({ v: 2, rounds: { completed: 1 } });
    } finally {
      rig.sim.setFaults([]);
    }
  });
});

describe("gates under --profile strict: no milestone in the seed's words, so convergence comes from /details", () => {
  const strict = useRig({ profile: 'strict', hold: true });

  /** Runs the turn held until it is seen listening, then free: the live-only native stream misses nothing. */
  async function heldAsk(args: string[], r: Rig = strict) {
    const run = r.start(['ask', ...args, QUESTION]);
    const job = await strict.sim.control.nextJob();
    if (args.includes('--agents')) await strict.sim.control.attached(job);
    strict.sim.control.release(job);
    return run.result;
  }

  it("compat: the verdict's convergence is /details' rounds[].convergence_score, and --min-convergence is judged", async () => {
    const run = await heldAsk(['-o', 'json', '--min-convergence', '0']);
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout) as JsonTurn;
    const details = (await (await fetch(`${strict.sim.url}/deliberation/${json.job_id}/details`)).json()) as {
      rounds: Array<{ round: number; convergence_score: number }>;
    };
    const reported = details.rounds.map((r) => ({ round: r.round, value: r.convergence_score }));
    expect(reported.length).toBeGreaterThan(0);
    expect(json.verdict?.convergence.per_round).toEqual(reported);
    expect(json.verdict?.convergence.final).toBe(reported.at(-1)?.value);
    expect(json.gate).toMatchObject({ status: 'pass', checks: [{ name: 'min-convergence', status: 'pass' }] });
    expect(json.verdict?.chosen).toMatchObject({ source: 'last_round' });
    expect(json.verdict?.claims?.chosen_counts).not.toBeNull();
  });

  it('compat: where /details reports no convergence either, --min-convergence is inconclusive with its own wording, exit 13', async () => {
    const proxy = await startRewritingProxy(
      strict.sim.url,
      (seen) => seen.url.endsWith('/details'),
      (_seen, body) => ({ ...(body as Record<string, unknown>), rounds: [] }),
    );
    try {
      const r = await heldAsk(['--url', proxy.url, '--min-convergence', '0.5']);
      expect(r.code).toBe(13);
      expect(r.stdout).toMatch(/^## Design a cache/);
      expect(r.stderr).toContain(
        'nsed: gate min-convergence inconclusive: the server did not report convergence (expected at least 0.5)\n',
      );
      expect(r.stderr).toMatch(/^nsed: 1 of 1 gate could not be judged: the server did not report the value$/m);
    } finally {
      await proxy.close();
    }
  });

  it('compat: a failed check beats an inconclusive one (exit 12), and both are named', async () => {
    const proxy = await startRewritingProxy(
      strict.sim.url,
      (seen) => seen.url.endsWith('/details'),
      (_seen, body) => ({ ...(body as Record<string, unknown>), rounds: [] }),
    );
    try {
      const r = await heldAsk(['--url', proxy.url, '--min-convergence', '0.5', '--min-score', '1']);
      expect(r.code).toBe(12);
      expect(r.stderr).toMatch(/^nsed: gate min-convergence inconclusive: /m);
      expect(r.stderr).toMatch(/^nsed: gate min-score failed: /m);
    } finally {
      await proxy.close();
    }
  });

  it('native: round_summary and job_complete give convergence and the chosen agent; claims are not reported', async () => {
    const run = await heldAsk([
      ...NATIVE,
      '-o',
      'json',
      '--min-convergence',
      '0.1',
      '--min-score',
      '0',
      '--max-wrong',
      '9',
    ]);
    expect(run.code, run.stderr).toBe(13);
    const json = JSON.parse(run.stdout) as JsonTurn;
    expect(json.verdict?.chosen).toMatchObject({ source: 'job_complete' });
    expect(json.verdict?.rounds).toEqual({ completed: 3, planned: 3 });
    expect(json.verdict?.convergence.final).toEqual(expect.any(Number));
    expect(json.verdict?.claims).toBeNull();
    expect(json.gate?.checks.map((c) => [c.name, c.status])).toEqual([
      ['min-convergence', 'pass'],
      ['max-wrong', 'inconclusive'],
      ['min-score', 'pass'],
    ]);
    expect(json.error).toMatchObject({ code: 'inconclusive', exit_code: 13 });
  });
});

describe('nsed gate: re-judging offline, from a session or a saved -o json object', () => {
  let saved: string;
  let session: string;
  let verdict: CouncilVerdict;
  beforeAll(async () => {
    const first = await rig.run(['ask', '-o', 'json', QUESTION]);
    saved = join(rig.home, 'turn.json');
    await writeFile(saved, first.stdout);
    const json = JSON.parse(first.stdout) as JsonTurn;
    session = json.session;
    verdict = json.verdict as CouncilVerdict;
  });

  it('judges the last answer of a session: a line per check with ✓ and ✗, exit 12; nothing is sent', async () => {
    const before = rig.sim.requests.length;
    const wrong = actualOf(verdict, 'max-wrong');
    const r = await rig.run(['gate', '-s', session, '--max-wrong', String(wrong), '--max-contested', '0']);
    expect(r.code).toBe(12);
    expect(r.stdout.split('\n').filter((l) => l !== '')).toEqual([
      `✓ gate max-wrong passed: wrong claims of the chosen proposal ${wrong}, expected at most ${wrong}`,
      `✗ gate max-contested failed: contested claims of the chosen proposal ${actualOf(verdict, 'max-contested')}, expected at most 0`,
    ]);
    expect(r.stderr).toMatch(/^nsed: the council's verdict failed 1 of 2 gates$/m);
    expect(rig.sim.requests.length).toBe(before);
  });

  it('--last --turn and -o json print the gate result; passing exits 0', async () => {
    const r = await rig.run(['gate', '--last', '--turn', '-1', '-o', 'json', '--min-margin', String(verdict.margin)]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      status: 'pass',
      checks: [{ name: 'min-margin', expected: verdict.margin, actual: verdict.margin, status: 'pass' }],
    });
    const user = await rig.run(['gate', '-s', session, '--turn', '1', '--max-wrong', '0']);
    expect(user.code).toBe(2);
    expect(user.stderr).toMatch(/is not an answer/);
  });

  it('judges a saved -o json object from a file and from stdin, with a gates file', async () => {
    const gates = join(rig.home, 'gates.json');
    await writeFile(gates, JSON.stringify({ 'min-convergence': '50%', 'max-wrong': 0 }));
    const fromFile = await rig.run(['gate', '--from', saved, '--gates', gates, '-o', 'json']);
    expect(fromFile.code).toBe(12);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({
      status: 'fail',
      checks: [
        { name: 'min-convergence', expected: 0.5, status: 'pass' },
        { name: 'max-wrong', expected: 0, status: 'fail' },
      ],
    });
    // A flag overrides the file's key.
    const { readFile } = await import('node:fs/promises');
    const fromStdin = await rig.run(['gate', '--from', '-', '--gates', gates, '--max-wrong', '5'], {
      stdin: await readFile(saved, 'utf8'),
    });
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(fromStdin.stdout).toMatch(/^✓ gate max-wrong passed: .* expected at most 5$/m);
    // Piped in without --from: the refusal names --from - as the way to read it.
    const piped = await rig.run(['gate', '--max-wrong', '5'], { stdin: await readFile(saved, 'utf8') });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('a saved -o json object with --from FILE');
    expect(piped.stderr).toContain('pass --from -');
  });

  it('a failed turn keeps its own code; bad input is exit 2 naming the problem', async () => {
    const failed = join(rig.home, 'failed.json');
    await writeFile(
      failed,
      JSON.stringify({ status: 'failed', verdict: null, error: { code: 'server', exit_code: 5 } }),
    );
    const kept = await rig.run(['gate', '--from', failed, '--max-wrong', '0']);
    expect(kept.code).toBe(5);
    expect(kept.stderr).toMatch(/gates judge only completed turns/);

    const bad = join(rig.home, 'bad-gates.json');
    await writeFile(bad, JSON.stringify({ maxWrong: 0 }));
    for (const [args, message] of [
      [
        ['gate', '--from', saved, '--gates', bad],
        /^nsed: unknown gate 'maxWrong' in --gates .*\nhint: the key is spelled 'max-wrong'$/m,
      ],
      [['gate', '--from', saved], /^nsed: name at least one gate$/m],
      [['gate', '--from', saved, '--min-convergence', '120%'], /^nsed: --min-convergence must be from 0 to 1/m],
      [['gate', '--from', saved, '--max-wrong', '1.5'], /^nsed: --max-wrong must be a whole number from 0/m],
      [['ask', '-o', 'json', '--min-score', 'high', QUESTION], /^nsed: --min-score needs a number, not 'high'$/m],
    ] as const) {
      const r = await rig.run([...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      // A usage error before a turn starts prints nothing on stdout, also with -o json.
      expect(r.stdout).toBe('');
    }
  });
});

describe('the same gates on continue, fork … PROMPT and resume', () => {
  it('continue and fork judge their turn; exit 12 with the answer recorded', async () => {
    const first = await rig.run(['ask', '-o', 'json', QUESTION]);
    const id = (JSON.parse(first.stdout) as JsonTurn).session;
    const next = await rig.run(['continue', '-s', id, '-o', 'json', '--min-score', '1', 'and for writes?']);
    expect(next.code).toBe(12);
    expect(JSON.parse(next.stdout)).toMatchObject({ session: id, status: 'complete', gate: { status: 'fail' } });
    const forked = await rig.run(['fork', id, '--at', '2', '-o', 'json', '--min-score', '-1', 'with priorities?']);
    expect(forked.code, forked.stderr).toBe(0);
    expect(JSON.parse(forked.stdout)).toMatchObject({ status: 'complete', gate: { status: 'pass' } });
  });

  it('resume judges the turn it finishes (reliability #42: interrupted, then resumed)', async () => {
    const held = await makeRig({ hold: true });
    try {
      const run = held.start(['ask', '-o', 'json', QUESTION]);
      const job = await held.sim.control.nextJob();
      await held.sim.control.parked(job);
      run.interrupt(130);
      expect((await run.result).code).toBe(130);
      held.sim.control.release(job);
      const resumed = await held.run(['resume', '--last', '-o', 'json', '--min-score', '1']);
      expect(resumed.code).toBe(12);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ job_id: job, status: 'complete', gate: { status: 'fail' } });
    } finally {
      await held.close();
    }
  });
});
