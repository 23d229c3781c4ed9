// The CI reports of a run (README "CI"): --summary and --junit files, --annotate on stderr, and
// the same reports from the store with sessions export --format summary|junit.
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, type TestSuites } from 'junit2json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRig, parseNdjson, useRig } from '../harness/rig.js';
import { until } from '../harness/sse.js';
import { failingGate, fullVerdict } from '../output/report-fixtures.js';

const rig = useRig();
const failing = useRig({ faults: ['fail-at-round=2'] });
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-reports-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function junit(file: string): Promise<TestSuites> {
  const doc = await parse(await readFile(file, 'utf8'));
  if (doc == null || !('testsuite' in doc)) throw new Error(`${file} has no <testsuites>`);
  return doc as TestSuites;
}

const exists = (p: string): Promise<boolean> =>
  stat(p).then(
    () => true,
    () => false,
  );

describe('--summary and --junit from a run', () => {
  it('write both reports with --no-save, stdout stays exactly the answer, and the store stays untouched', async () => {
    const home = join(dir, 'never');
    const [summary, xml] = [join(dir, 'nosave.md'), join(dir, 'nosave.xml')];
    const r = await rig.run(
      ['ask', '--no-save', '-o', 'final', '--summary', summary, '--junit', xml, 'Is the plan safe?'],
      {
        env: { NSED_HOME: home },
      },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const md = await readFile(summary, 'utf8');
    expect(md).toContain('> Is the plan safe?');
    // The answer as printed, its headings two levels down under the summary's own.
    expect(md).toContain(`### Answer\n\n${r.stdout.trimEnd().replace(/^## /gm, '#### ')}`);
    expect(md).toMatch(/^\| 1\/\d+ \| [^|]+ \| Cortex\w+ \| \d\.\d\d \|/m);
    expect(md).not.toContain('sessions export'); // nothing to export: the run was not saved
    const doc = await junit(xml);
    expect(doc).toMatchObject({ tests: 1, failures: 0, errors: 0 });
    expect(doc.testsuite?.[0]?.testcase?.[0]?.name).toBe('deliberation');
    expect(await exists(home)).toBe(false);
  });

  it("JUnit's time is the turn's, from its question's record to its answer's, not 0", async () => {
    const xml = join(dir, 'timed.xml');
    const r = await rig.run(['ask', '-o', 'json', '--junit', xml, 'Design a cache']);
    expect(r.code, r.stderr).toBe(0);
    const saved = await rig.session((JSON.parse(r.stdout) as { session: string }).session);
    const [question, answer] = (saved['turns'] as Array<{ ts: string }>).map((t) => Date.parse(t.ts));
    const seconds = ((answer ?? NaN) - (question ?? NaN)) / 1000;
    expect(seconds).toBeGreaterThan(0);
    const doc = await junit(xml);
    expect(doc.time).toBeCloseTo(seconds, 3);
    expect(doc.testsuite?.[0]?.time).toBeCloseTo(seconds, 3);
  });

  it('equal sessions export --format summary|junit of the recorded turn, byte for byte', async () => {
    const [summary, xml] = [join(dir, 'saved.md'), join(dir, 'saved.xml')];
    const r = await rig.run(['ask', '-o', 'json', '--summary', summary, '--junit', xml, 'Design a cache']);
    expect(r.code).toBe(0);
    const id = (JSON.parse(r.stdout) as { session: string }).session;
    const md = await rig.run(['sessions', 'export', id, '--format', 'summary']);
    const junitExport = await rig.run(['sessions', 'export', id, '--format', 'junit']);
    expect(md.stdout).toBe(await readFile(summary, 'utf8'));
    expect(junitExport.stdout).toBe(await readFile(xml, 'utf8'));
  });

  it('report the verdict and gate result recorded on the turn: a JUnit case per check', async () => {
    const r = await rig.run(['ask', '-o', 'json', 'Design a queue']);
    const id = (JSON.parse(r.stdout) as { session: string }).session;
    // The verdict and gate as the turn records them (docs/ndjson.md); written here by hand.
    const file = join(rig.home, 'sessions', `${id}.json`);
    const session = JSON.parse(await readFile(file, 'utf8')) as { turns: Array<Record<string, unknown>> };
    Object.assign(session.turns.at(-1) ?? {}, { verdict: fullVerdict(), gate: failingGate });
    await writeFile(file, JSON.stringify(session));
    const xml = join(dir, 'gated.xml');
    expect((await rig.run(['sessions', 'export', id, '--format', 'junit', '--out', xml])).code).toBe(0);
    const doc = await junit(xml);
    expect(doc).toMatchObject({ tests: 4, failures: 3, errors: 0 });
    expect(doc.testsuite?.[0]?.testcase?.map((c) => c.failure?.[0]?.type ?? 'pass')).toEqual([
      'gate_failed',
      'gate_failed',
      'pass',
      'inconclusive',
    ]);
    const md = await rig.run(['sessions', 'export', id, '--format', 'summary']);
    expect(md.stdout.split('\n')[0]).toBe('## nsed · ✗ gate failed');
    expect(md.stdout).toContain('| `max-wrong` | wrong claims of the chosen proposal | ≤ 0 | 1 | ✗ fail |');
    expect(md.stdout).toContain('- Chosen: **CortexA**, score 0.82');
  });

  it('report a failed deliberation as an error (JUnit) and as failed (summary), keeping its exit code', async () => {
    const [summary, xml] = [join(dir, 'failed.md'), join(dir, 'failed.xml')];
    const r = await failing.run(['ask', '-o', 'json', '--summary', summary, '--junit', xml, 'Design a cache']);
    expect(r.code).toBe(5);
    const doc = await junit(xml);
    expect(doc).toMatchObject({ tests: 1, failures: 0, errors: 1 });
    expect(doc.testsuite?.[0]?.testcase?.[0]?.error?.[0]?.message).toMatch(
      /^the deliberation ended failed: .*quorum lost/,
    );
    const md = await readFile(summary, 'utf8');
    expect(md.split('\n')[0]).toBe('## nsed · ✗ deliberation failed');
    expect(md).toContain('| 1/');
  });

  it('continue writes the report of its own turn, and replaces the file atomically', async () => {
    const first = await rig.run(['ask', '-o', 'json', 'first question']);
    const id = (JSON.parse(first.stdout) as { session: string }).session;
    const summary = join(dir, 'continue.md');
    await writeFile(summary, 'old content');
    const r = await rig.run(['continue', '-s', id, '-o', 'final', '--summary', summary, 'second question']);
    expect(r.code).toBe(0);
    const md = await readFile(summary, 'utf8');
    expect(md).toContain('> second question');
    expect(md).not.toContain('old content');
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses a report file that could never be written before any deliberation starts (exit 2)', async () => {
    const before = rig.sim.requests.length;
    for (const [args, message] of [
      [['--summary', join(dir, 'missing', 'x.md')], /^nsed: --summary .*: the folder .* does not exist$/m],
      [['--junit', dir], /^nsed: --junit .* is a folder$/m],
      [
        ['--summary', join(dir, 'same'), '--junit', join(dir, 'same')],
        /^nsed: --summary and --junit name the same file$/m,
      ],
      [['--junit', ''], /^nsed: --junit needs a file name$/m],
    ] as const) {
      const r = await rig.run(['ask', ...args, 'hello']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    const fork = await rig.run(['fork', 'x', '--junit', join(dir, 'f.xml')]);
    expect(fork.code).toBe(2);
    expect(fork.stderr).toMatch(/^nsed: .*give fork a PROMPT/m);
    expect(rig.sim.requests.length).toBe(before);
  });
});

describe('reports of a resumed turn, and reports that cannot be written', () => {
  it('resume writes the reports of the turn it follows to its end', async () => {
    const held = await makeRig({ hold: true });
    try {
      const nextJob = held.sim.control.nextJob();
      const first = held.start(['ask', '-o', 'ndjson', 'Design a cache']);
      const job = await nextJob;
      await first.output((o) => o.includes('"type":"job"'));
      first.interrupt();
      const interrupted = await first.result;
      expect(interrupted.code).toBe(130);
      const session = String(parseNdjson(interrupted.stdout)[0]?.['session']);
      const [summary, xml] = [join(dir, 'resumed.md'), join(dir, 'resumed.xml')];
      const before = held.sim.requests.length;
      const resumed = held.start(['resume', '-s', session, '-o', 'final', '--summary', summary, '--junit', xml]);
      await until(() => held.sim.requests.slice(before).some((q) => q.path === `/deliberation/${job}/resume`));
      held.sim.control.release(job);
      const r = await resumed.result;
      expect(r.code, r.stderr).toBe(0);
      expect(await junit(xml)).toMatchObject({ tests: 1, failures: 0, errors: 0 });
      const md = await readFile(summary, 'utf8');
      expect(md.split('\n')[0]).toBe('## nsed · deliberation completed');
      expect(md).toContain('> Design a cache');
      expect(md).toContain(`job \`${job}\``);
    } finally {
      await held.close();
    }
  });

  // /proc/self exists, but no file can be created in it: the write fails after the turn.
  const unwritable = '/proc/self/nsed-summary.md';

  it('a report that cannot be written after a completed turn exits 11 (io); the turn stays recorded', async () => {
    const r = await rig.run(['ask', '-o', 'json', '--summary', unwritable, 'Design a cache']);
    expect(r.code).toBe(11);
    expect(r.stderr).toMatch(/^nsed: cannot write \/proc\/self\/nsed-summary\.md: \w+\n/);
    const id = (JSON.parse(r.stdout) as { session: string }).session;
    const saved = await rig.session<{ turns: Array<{ role: string; status: string }> }>(id);
    expect(saved.turns.at(-1)).toMatchObject({ role: 'assistant', status: 'complete' });
  });

  it('after a failed turn it only warns: the turn keeps its own exit code', async () => {
    const xml = join(dir, 'still-written.xml');
    const r = await failing.run(['ask', '-o', 'final', '--summary', unwritable, '--junit', xml, 'Design a cache']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^nsed: warning: cannot write \/proc\/self\/nsed-summary\.md/m);
    expect(r.stderr).toMatch(/^nsed: .*quorum lost/m);
    expect(await junit(xml)).toMatchObject({ errors: 1 });
  });
});

describe('--annotate', () => {
  it('prints workflow commands on stderr only, ending with one ::notice:: that points at the summary', async () => {
    const summary = join(dir, 'annotated.md');
    const r = await rig.run(['ask', '-o', 'json', '--annotate', '--summary', summary, 'Design a cache']);
    expect(r.code).toBe(0);
    expect(() => JSON.parse(r.stdout) as unknown).not.toThrow();
    expect(r.stdout).not.toContain('::');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(
      new RegExp(`^::notice title=nsed council::.* · summary: ${summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    );
    expect(lines.filter((l) => l.startsWith('::notice'))).toHaveLength(1);
  });

  it("the notice names the summary by its path from the workspace, and the runner's step summary file as the step's summary", async () => {
    const workspace = join(dir, 'checkout');
    await mkdir(join(workspace, 'reports'), { recursive: true });
    const inside = await rig.run([
      'ask',
      '-o',
      'final',
      '--annotate',
      '--workspace',
      workspace,
      '--summary',
      join(workspace, 'reports', 'summary.md'),
      'Design a cache',
    ]);
    expect(inside.code, inside.stderr).toBe(0);
    expect(inside.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^::notice title=nsed council::.* · summary: reports\/summary\.md$/,
    );
    // The runner's $GITHUB_STEP_SUMMARY lives in its temporary folder, outside the workspace.
    const stepSummary = join(dir, '_runner_file_commands', 'step_summary_1');
    await mkdir(join(dir, '_runner_file_commands'), { recursive: true });
    const step = await rig.run(
      ['ask', '-o', 'final', '--annotate', '--workspace', workspace, '--summary', stepSummary, 'Design a cache'],
      { env: { GITHUB_STEP_SUMMARY: stepSummary } },
    );
    expect(step.code, step.stderr).toBe(0);
    const notice = step.stderr.trimEnd().split('\n').at(-1);
    expect(notice).toMatch(/ · summary: the step's summary on the run's page$/);
    expect(notice).not.toContain(dir);
  });

  it('prints nothing of the kind unless asked', async () => {
    const r = await rig.run(['ask', '-o', 'final', 'Design a cache']);
    expect(r.stderr).not.toContain('::');
  });
});
