// The Action's check run (docs/ci-review.md, action/check-run.mjs), run as its step runs it against
// the loopback stand-in for GitHub's REST API (test/harness/github-checks-reviews.ts), on findings
// the real CLI wrote as rdjsonl: every finding an annotation, sent 50 a request (GitHub's limit;
// a step's own annotations stop at 10 errors and 10 warnings), the verdict as the conclusion, and a
// re-run that updates the same check run without adding an annotation twice.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { parseGithubFile } from '../harness/github-files.js';
import { startGithubApi, type GithubApi } from '../harness/github-api.js';
import { runScript } from '../harness/process.js';
import { writeFindings, type ReviewFinding } from '../harness/rdjson-findings.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TOKEN = 'ghs_check_run_canary_41c7aa';
const SHA = 'a'.repeat(40);

let dir: string;
let ws: string;
let github: GithubApi;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-action-check-run-'));
  ws = join(dir, 'checkout');
  await mkdir(join(ws, 'src'), { recursive: true });
  await writeFile(join(ws, 'src', 'big.py'), Array.from({ length: 300 }, (_, i) => `x${i} = ${i}`).join('\n'));
  github = await startGithubApi({ owner: 'acme', repo: 'widgets', token: TOKEN });
});

afterAll(async () => {
  await github?.close();
  await rm(dir, { recursive: true, force: true });
});

/** action/check-run.mjs with the environment action.yml gives it after an nsed step that ended so. */
async function checkRunStep(o: {
  rdjson: string;
  exitCode: number;
  gate: string;
  sha?: string;
  summary?: string;
}): Promise<{ code: number | null; log: string; outputs: Map<string, string> }> {
  const event = join(dir, 'event.json');
  await writeFile(event, JSON.stringify({ pull_request: { number: 3, head: { sha: o.sha ?? SHA } } }));
  const summary = join(dir, 'summary.md');
  await writeFile(summary, o.summary ?? '## nsed\n\nThe council reviewed the change.\n');
  const outputs = join(dir, `output-${Math.random().toString(16).slice(2)}`);
  await writeFile(outputs, '');
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    GITHUB_ACTIONS: 'true',
    GITHUB_API_URL: github.url,
    GITHUB_REPOSITORY: 'acme/widgets',
    GITHUB_EVENT_PATH: event,
    GITHUB_SHA: 'f'.repeat(40),
    GITHUB_OUTPUT: outputs,
    NSED_GITHUB_TOKEN: TOKEN,
    NSED_CHECK_RUN_NAME: 'nsed council',
    NSED_RDJSON_FILE: o.rdjson,
    NSED_SUMMARY_FILE: summary,
    NSED_EXIT_CODE: String(o.exitCode),
    NSED_GATE: o.gate,
  };
  const { code, log } = await runScript(join(ROOT, 'action', 'check-run.mjs'), { env });
  return { code, log, outputs: parseGithubFile(await readFile(outputs, 'utf8')) };
}

const many = (n: number, from = 1): ReviewFinding[] =>
  Array.from({ length: n }, (_, i) => ({
    file: 'src/big.py',
    line: from + i,
    severity: (['error', 'warning', 'notice'] as const)[i % 3] ?? 'error',
    message: `finding ${from + i}`,
  }));

describe("the Action's check run (reliability #204)", () => {
  it('writes 120 findings as annotations in requests of 50 on the head commit, the summary as its text; a re-run updates the same check run and adds only the new one', async () => {
    const first = await writeFindings(dir, ws, many(120));
    const r1 = await checkRunStep({ rdjson: first.rdjson, exitCode: ExitCode.ok, gate: 'pass' });
    expect(r1.code, r1.log).toBe(0);
    expect(r1.log).not.toContain('::warning');
    const runs = github.pulls.checkRuns;
    expect(runs).toHaveLength(1);
    const run = runs[0];
    // The pull request's head, not GITHUB_SHA (a pull request's merge commit).
    expect(run?.head_sha).toBe(SHA);
    expect(run?.name).toBe('nsed council');
    expect(run?.conclusion).toBe('success');
    expect(run?.status).toBe('completed');
    expect(run?.output.title).toBe('nsed council passed: 120 findings');
    expect(run?.output.summary).toBe('## nsed\n\nThe council reviewed the change.\n');
    expect(run?.annotations).toHaveLength(120);
    expect(run?.annotations[0]).toEqual({
      path: 'src/big.py',
      start_line: 1,
      end_line: 1,
      annotation_level: 'failure',
      message: 'finding 1',
    });
    expect(run?.annotations.map((a) => a.annotation_level).slice(0, 3)).toEqual(['failure', 'warning', 'notice']);
    const writes = github.requests.filter((q) => q.method === 'POST' || q.method === 'PATCH');
    const counts = writes.map(
      (q) => `${q.method} ${(q.body as { output: { annotations: unknown[] } }).output.annotations.length}`,
    );
    expect(counts).toEqual(['POST 50', 'PATCH 50', 'PATCH 20']);
    expect(r1.outputs.get('check-run-id')).toBe(String(run?.id));
    expect(r1.outputs.get('check-run-url')).toBe(run?.html_url);

    // A re-run whose gate fails, with one finding more: the same check run, failed, 121 annotations.
    const before = github.requests.length;
    const second = await writeFindings(dir, ws, many(121));
    const r2 = await checkRunStep({ rdjson: second.rdjson, exitCode: ExitCode.gateFailed, gate: 'fail' });
    expect(r2.code, r2.log).toBe(0);
    expect(r2.log).toContain('nsed: updated check run "nsed council" (failure, 121 annotations)');
    expect(github.pulls.checkRuns).toHaveLength(1);
    expect(run?.conclusion).toBe('failure');
    expect(run?.output.title).toBe('nsed council failed: 121 findings');
    expect(run?.annotations).toHaveLength(121);
    expect(new Set(run?.annotations.map((a) => a.message)).size).toBe(121);
    const again = github.requests.slice(before);
    expect(again.map((q) => `${q.method} ${q.path}`)).toEqual([
      `GET /repos/acme/widgets/commits/${SHA}/check-runs`,
      `GET /repos/acme/widgets/check-runs/${run?.id}/annotations`,
      `GET /repos/acme/widgets/check-runs/${run?.id}/annotations`,
      `PATCH /repos/acme/widgets/check-runs/${run?.id}`,
    ]);
    expect(again[0]?.query['check_name']).toBe('nsed council');
    expect(r2.outputs.get('check-run-id')).toBe(String(run?.id));
    expect(github.requests.every((q) => q.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(r1.log + r2.log + [...r1.outputs.values(), ...r2.outputs.values()].join('')).not.toContain(TOKEN);
  });

  it.each([
    ['success', ExitCode.ok, 'pass', 'b'],
    ['success', ExitCode.ok, 'none', 'c'],
    ['failure', ExitCode.gateFailed, 'fail', 'd'],
    ['neutral', ExitCode.inconclusive, 'inconclusive', 'e'],
    ['failure', ExitCode.usage, 'none', '1'],
  ])('concludes %s after nsed exit %i with gate %s', async (conclusion, exitCode, gate, sha) => {
    const empty = join(dir, 'empty.rdjsonl');
    await writeFile(empty, '');
    const r = await checkRunStep({ rdjson: empty, exitCode, gate, sha: sha.repeat(40) });
    expect(r.code, r.log).toBe(0);
    const run = github.pulls.checkRuns.find((c) => c.head_sha === sha.repeat(40));
    expect(run?.conclusion).toBe(conclusion);
    expect(run?.annotations).toEqual([]);
  });

  it('is a warning, not a failed step, when GitHub refuses it (a token without checks write)', async () => {
    const empty = join(dir, 'empty.rdjsonl');
    await writeFile(empty, '');
    const other = await startGithubApi({ owner: 'acme', repo: 'widgets', token: 'another-token' });
    try {
      const event = join(dir, 'event.json');
      await writeFile(event, JSON.stringify({ pull_request: { number: 3, head: { sha: SHA } } }));
      const r = await runScript(join(ROOT, 'action', 'check-run.mjs'), {
        env: {
          PATH: process.env['PATH'] ?? '',
          GITHUB_API_URL: other.url,
          GITHUB_REPOSITORY: 'acme/widgets',
          GITHUB_EVENT_PATH: event,
          NSED_GITHUB_TOKEN: TOKEN,
          NSED_CHECK_RUN_NAME: 'nsed council',
          NSED_RDJSON_FILE: empty,
          NSED_EXIT_CODE: '0',
        },
      });
      expect(r.code).toBe(0);
      expect(r.log).toMatch(
        /^::warning title=nsed check run::the check run was not written: GET \/repos\/acme\/widgets\/commits\/a+\/check-runs answered 401: Bad credentials$/m,
      );
      expect(r.log).not.toContain(TOKEN);
    } finally {
      await other.close();
    }
  });
});
