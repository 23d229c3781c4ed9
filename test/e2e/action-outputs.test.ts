// Step outputs (docs/ci.md "Step outputs"): under GitHub Actions (GITHUB_ACTIONS=true and
// GITHUB_OUTPUT set) or with --github-output FILE, ask, gate and batch append their outputs to
// the file in GitHub's multi-line form, read back here as the runner reads it.
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubOutputText } from '../../src/output/github-output.js';
import { stepOutputFile } from '../../src/turn/reports/report-options.js';
import { parseGithubFile } from '../harness/github-files.js';
import { spawnCli } from '../harness/process.js';
import { useRig } from '../harness/rig.js';

const rig = useRig({ control: true });
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-outputs-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const TOKEN = 'sk-step-outputs-canary-4242';

/** `nsed <args> > stdoutFile` as a runner's shell runs it: stdout a regular file, stdin closed, no TTY. */
async function runTo(
  args: string[],
  stdoutFile: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  const fd = openSync(stdoutFile, 'w');
  try {
    const { code, stderr } = await spawnCli(args, { env: { ...rig.env, NSED_TOKEN: TOKEN, ...env }, stdout: fd })
      .result;
    return { code, stderr };
  } finally {
    closeSync(fd);
  }
}

describe('step outputs', () => {
  it("a re-run under the same idempotency key repeats the first attempt's cost-usd: what the deliberation cost, not what this run paid", async () => {
    const before = rig.sim.requests.length;
    const ask = (file: string) =>
      rig.run([
        'ask',
        '-p',
        'fast',
        '-o',
        'final',
        '--idempotency-key',
        'run-1-review',
        '--github-output',
        join(dir, file),
        'Is the rerun plan safe?',
      ]);
    const first = await ask('first_output');
    expect(first.code, first.stderr).toBe(0);
    const sent = rig.sim.requests.length - before;
    const again = await ask('again_output');
    expect(again.code, again.stderr).toBe(0);
    // Nothing was sent the second time, yet its cost-usd is the first attempt's, as README says.
    expect(rig.sim.requests.length - before).toBe(sent);
    const [a, b] = [
      parseGithubFile(await readFile(join(dir, 'first_output'), 'utf8')),
      parseGithubFile(await readFile(join(dir, 'again_output'), 'utf8')),
    ];
    expect(Number(a.get('cost-usd'))).toBeGreaterThan(0);
    expect(b.get('cost-usd')).toBe(a.get('cost-usd'));
    expect(b.get('session-id')).toBe(a.get('session-id'));
  });

  it('ask under GitHub Actions appends its outputs to $GITHUB_OUTPUT, keeping what earlier steps wrote; never the token or the answer', async () => {
    const outputs = join(dir, 'github_output');
    await writeFile(outputs, 'earlier=kept\n');
    const answer = join(dir, 'answer.md');
    const r = await runTo(
      ['ask', '-p', 'fast', '-o', 'final', '--min-convergence', '10%', 'Is the plan safe?'],
      answer,
      {
        GITHUB_ACTIONS: 'true',
        GITHUB_OUTPUT: outputs,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const text = await readFile(outputs, 'utf8');
    const got = parseGithubFile(text);
    expect(got.get('earlier')).toBe('kept');
    const session = got.get('session-id') ?? '';
    const stored = await rig.session<{ turns: Array<{ role: string; job_id?: string }> }>(session);
    expect(got.get('job-id')).toBe(stored.turns.findLast((t) => t.role === 'assistant')?.job_id);
    expect(got.get('status')).toBe('complete');
    expect(got.get('exit-code')).toBe('0');
    expect(got.get('gate')).toBe('pass');
    expect(Number(got.get('convergence'))).toBeGreaterThanOrEqual(0.1);
    expect(got.get('chosen-agent')).toMatch(/^Cortex/);
    expect(got.get('answer-file')).toBe(answer);
    const answerText = (await readFile(answer, 'utf8')).trim();
    expect(answerText.length).toBeGreaterThan(0);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(answerText.split('\n')[0]);
  });

  it('gate --github-output says fail and 12 for a failed gate, off GitHub Actions too', async () => {
    const outputs = join(dir, 'gate-outputs');
    const r = await runTo(
      ['gate', '--last', '--min-score', '1.5', '--github-output', outputs],
      join(dir, 'gate.txt'),
      {},
    );
    expect(r.code).toBe(12);
    const got = parseGithubFile(await readFile(outputs, 'utf8'));
    expect(got.get('gate')).toBe('fail');
    expect(got.get('exit-code')).toBe('12');
    expect(got.get('session-id')).toMatch(/^\d{8}-/);
  });

  it('without a gate the output says none; a pipe on stdout gives no answer-file', async () => {
    const outputs = join(dir, 'nogate');
    const r = await rig.runProcess(['ask', '-p', 'fast', '-o', 'final', '--github-output', outputs, 'Plain question?']);
    expect(r.code).toBe(0);
    const got = parseGithubFile(await readFile(outputs, 'utf8'));
    expect(got.get('gate')).toBe('none');
    expect(got.has('answer-file')).toBe(false);
  });

  it('a retried step under the same idempotency key replays the answer, sends nothing, and writes the same outputs again', async () => {
    const started = async (): Promise<number> =>
      ((await (await fetch(`${rig.sim.url}/_sim/stats`)).json()) as { started: number }).started;
    const args = ['ask', '-p', 'fast', '-o', 'final', '--idempotency-key', 'run-1-job-review', 'Retry me?'];
    const [first, again] = [join(dir, 'first-outputs'), join(dir, 'again-outputs')];
    expect((await runTo(args, join(dir, 'first.md'), { GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: first })).code).toBe(0);
    const before = await started();
    const r = await runTo(args, join(dir, 'again.md'), { GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: again });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('sending nothing');
    expect(await started()).toBe(before);
    const [a, b] = [parseGithubFile(await readFile(first, 'utf8')), parseGithubFile(await readFile(again, 'utf8'))];
    for (const name of ['session-id', 'job-id', 'status', 'exit-code', 'convergence', 'chosen-agent', 'gate'])
      expect(b.get(name), name).toBe(a.get(name));
    expect(b.get('answer-file')).toBe(join(dir, 'again.md'));
  });

  it('batch appends its counts per status and the exit code', async () => {
    const items = join(dir, 'items.jsonl');
    await writeFile(items, '{"id":"a","prompt":"Design a cache"}\n{"id":"b","prompt":"Design a queue"}\n');
    const outputs = join(dir, 'batch-outputs');
    const results = join(dir, 'results.jsonl');
    const r = await runTo(
      ['batch', items, '-p', 'fast', '--out', results, '--min-score', '1.5'],
      join(dir, 'batch.txt'),
      {
        GITHUB_ACTIONS: 'true',
        GITHUB_OUTPUT: outputs,
      },
    );
    expect(r.code).toBe(12);
    const got = parseGithubFile(await readFile(outputs, 'utf8'));
    expect(got.get('batch-id')).toMatch(/^batch-/);
    expect(got.get('status')).toBe('gate_failed');
    expect(got.get('exit-code')).toBe('12');
    expect(got.get('items')).toBe('2');
    expect(got.get('items-gate-failed')).toBe('2');
    expect(got.get('items-ok')).toBe('0');
    expect(got.get('results-file')).toBe(results);
  });
});

describe('the multi-line form (reliability #195)', () => {
  it('draws a new delimiter for a value that holds it, so no value can end its entry or add an output', () => {
    const draws = ['aa', 'aa', 'bb', 'cc'];
    const hex = (): string => draws.shift() ?? 'zz';
    const hostile = 'first line\nnsed_aa\ninjected=1\nname<<EOF';
    const text = githubOutputText(
      [
        ['chosen-agent', hostile],
        ['status', 'complete'],
      ],
      hex,
    );
    const got = parseGithubFile(text);
    expect(got.get('chosen-agent')).toBe(hostile);
    expect(got.get('status')).toBe('complete');
    expect([...got.keys()]).toEqual(['chosen-agent', 'status']);
    expect(text).toContain('chosen-agent<<nsed_bb\n');
  });
});

describe('where step outputs go', () => {
  it('to --github-output FILE, else to $GITHUB_OUTPUT only when GITHUB_ACTIONS is true', () => {
    expect(stepOutputFile({ githubOutput: 'mine.txt' }, { GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: 'gh.txt' })).toBe(
      'mine.txt',
    );
    expect(stepOutputFile(undefined, { GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: 'gh.txt' })).toBe('gh.txt');
    // Another CI (or a shell) that happens to have GITHUB_OUTPUT set: nothing is written.
    expect(stepOutputFile(undefined, { GITHUB_OUTPUT: 'gh.txt' })).toBeUndefined();
    expect(stepOutputFile(undefined, { GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: '' })).toBeUndefined();
  });

  it('refuses an empty --github-output or --junit-name before anything is sent (exit 2)', async () => {
    for (const args of [
      ['--github-output', ''],
      ['--junit-name', ' '],
    ]) {
      const r = await rig.run(['ask', '-p', 'fast', ...args, 'q']);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^nsed: --(github-output needs a file name|junit-name needs a name)/);
    }
  });
});
