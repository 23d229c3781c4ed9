// The Action's pull-request review (docs/ci-review.md, action/review.mjs), run as its step runs it
// against the loopback stand-in for GitHub's REST API (test/harness/github-checks-reviews.ts, which
// refuses a comment on a line outside the diff as GitHub does), on findings the real CLI wrote as
// rdjsonl: comments only inside the diff, suggestions of at most five lines, a fingerprint in each
// (the same as nsed's Code Quality report gives), only new findings on a re-run with a count of
// those kept, one review per head commit, never APPROVE, REQUEST_CHANGES only when asked.
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
const TOKEN = 'ghs_review_canary_77e0d1';
const PR = 21;

let dir: string;
let ws: string;
let github: GithubApi;

/** Two hunks of src/retry.py: new lines 8-15 and 42-46 are in the diff, nothing else is. */
const PATCH = [
  '@@ -8,6 +8,8 @@ def retry():',
  '     a = 1',
  '-    b = 2',
  '+    b = 3',
  '+    c = 4',
  '+    d = 5',
  '     e = 6',
  '     f = 7',
  '     g = 8',
  '     h = 9',
  '@@ -40,4 +42,5 @@ def other():',
  '     x = 1',
  '+    y = 2',
  '     z = 3',
  '     w = 4',
  '     v = 5',
].join('\n');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-action-review-'));
  ws = join(dir, 'checkout');
  await mkdir(join(ws, 'src'), { recursive: true });
  await writeFile(join(ws, 'src', 'retry.py'), Array.from({ length: 60 }, (_, i) => `line${i + 1}`).join('\n'));
  await writeFile(join(ws, 'src', 'other.py'), 'x = 1\n');
  await writeFile(join(dir, 'outside.py'), 'x = 1\n');
  github = await startGithubApi({ owner: 'acme', repo: 'widgets', token: TOKEN });
  github.pulls.files.set(PR, [
    { filename: 'src/retry.py', status: 'modified', patch: PATCH },
    { filename: 'src/gone.py', status: 'removed', patch: '@@ -1,1 +0,0 @@\n-x = 1' },
  ]);
});

afterAll(async () => {
  await github?.close();
  await rm(dir, { recursive: true, force: true });
});

/** action/review.mjs with the environment action.yml gives it. */
async function reviewStep(o: {
  rdjson: string;
  sha: string;
  exitCode?: number;
  requestChanges?: boolean;
}): Promise<{ code: number | null; log: string; outputs: Map<string, string> }> {
  const event = join(dir, 'event.json');
  await writeFile(
    event,
    JSON.stringify({ action: 'synchronize', number: PR, pull_request: { number: PR, head: { sha: o.sha } } }),
  );
  const outputs = join(dir, `output-${Math.random().toString(16).slice(2)}`);
  await writeFile(outputs, '');
  const { code, log } = await runScript(join(ROOT, 'action', 'review.mjs'), {
    env: {
      PATH: process.env['PATH'] ?? '',
      GITHUB_ACTIONS: 'true',
      GITHUB_API_URL: github.url,
      GITHUB_REPOSITORY: 'acme/widgets',
      GITHUB_EVENT_PATH: event,
      GITHUB_OUTPUT: outputs,
      NSED_GITHUB_TOKEN: TOKEN,
      NSED_RDJSON_FILE: o.rdjson,
      NSED_EXIT_CODE: String(o.exitCode ?? ExitCode.ok),
      NSED_REQUEST_CHANGES: o.requestChanges === true ? 'true' : 'false',
    },
  });
  return { code, log, outputs: parseGithubFile(await readFile(outputs, 'utf8')) };
}

const FINDINGS: ReviewFinding[] = [
  {
    file: 'src/retry.py',
    line: 10,
    severity: 'warning',
    title: 'No back-off',
    message: 'sleep between tries',
    suggestion: '    b = 3  # then sleep(2)',
  },
  { file: 'src/retry.py', line: 12, end_line: 14, severity: 'error', message: 'three lines', suggestion: 'e\nf\ng\n' },
  {
    file: 'src/retry.py',
    line: 9,
    end_line: 15,
    severity: 'notice',
    message: 'seven lines',
    suggestion: '1\n2\n3\n4\n5\n6\n7',
  },
  { file: 'src/retry.py', line: 30, severity: 'error', message: 'not in the diff' },
  { file: 'src/retry.py', line: 14, end_line: 43, severity: 'error', message: 'over two hunks' },
  { file: 'src/other.py', line: 1, severity: 'warning', message: 'a file the pull request does not change' },
  { file: '../outside.py', line: 1, severity: 'error', message: 'a path out of the checkout' },
];

const SHA1 = '1'.repeat(40);

describe("the Action's pull-request review (reliability #205)", () => {
  it('comments only inside the diff, with suggestions of five lines at most and a fingerprint each; a re-run posts only the new finding and says how many it kept; nothing new on the same commit posts nothing', async () => {
    // A hostile message naming the first finding's fingerprint cannot make a re-run skip it.
    // The finding the re-run adds; a comment of the first run tries to claim its fingerprint.
    const later: ReviewFinding = { file: 'src/retry.py', line: 45, severity: 'warning', message: 'new on the re-run' };
    const first = await writeFindings(dir, ws, [...FINDINGS, later]);
    const issues = JSON.parse(await readFile(first.codequality, 'utf8')) as Array<{
      fingerprint: string;
      location: { path: string; lines: { begin: number } };
    }>;
    const fp = (line: number) => issues.find((i) => i.location.lines.begin === line)?.fingerprint ?? '';
    const forged: ReviewFinding = {
      file: 'src/retry.py',
      line: 44,
      severity: 'notice',
      message: `looks fine <!-- nsed-finding fp=${fp(45)} -->`,
      suggestion: `line44\n<!-- nsed-finding fp=${fp(45)} -->`,
    };
    const withForged = await writeFindings(dir, ws, [forged, ...FINDINGS]);
    expect(withForged.stderr).toContain('finding at ../outside.py:1 dropped');
    const all = JSON.parse(await readFile(withForged.codequality, 'utf8')) as typeof issues;
    const fpAll = (line: number) => all.find((i) => i.location.lines.begin === line)?.fingerprint ?? '';

    const r1 = await reviewStep({ rdjson: withForged.rdjson, sha: SHA1 });
    expect(r1.code, r1.log).toBe(0);
    expect(r1.log).not.toContain('::warning');
    expect(r1.log).toContain(
      'nsed: reviewed pull request #21: 4 new comments, 0 findings kept, 3 findings outside the diff',
    );
    const reviews = github.pulls.reviews.get(PR) ?? [];
    expect(reviews).toHaveLength(1);
    expect(reviews[0]?.state).toBe('COMMENTED');
    expect(reviews[0]?.commit_id).toBe(SHA1);
    expect(reviews[0]?.body).toContain(
      '**nsed council**: 4 new findings on the diff, 0 findings kept from earlier reviews, 3 findings outside the diff (in the step summary).',
    );
    const comments = github.pulls.reviewComments.get(PR) ?? [];
    expect(comments.map((c) => [c.path, c.start_line, c.line, c.side])).toEqual([
      ['src/retry.py', null, 44, 'RIGHT'],
      ['src/retry.py', null, 10, 'RIGHT'],
      ['src/retry.py', 12, 14, 'RIGHT'],
      ['src/retry.py', 9, 15, 'RIGHT'],
    ]);
    const [hostile, one, three, seven] = comments.map((c) => c.body);
    expect(one).toBe(
      [
        '⚠️ **warning: No back-off**',
        '',
        'sleep between tries',
        '',
        '```suggestion',
        '    b = 3  # then sleep(2)',
        '```',
        '',
        `<!-- nsed-finding fp=${fp(10)} -->`,
      ].join('\n'),
    );
    expect(three).toContain('```suggestion\ne\nf\ng\n```');
    expect(seven).toContain('seven lines');
    expect(seven).not.toContain('suggestion');
    expect(hostile).toContain(`looks fine &lt;!-- nsed-finding fp=${fp(45)} -->`);
    // Each comment's fingerprint is the finding's identity in nsed's own reports (Code Quality, SARIF).
    expect(comments.map((c) => /fp=([0-9a-f]{32}) -->$/.exec(c.body)?.[1])).toEqual([fpAll(44), fp(10), fp(12), fp(9)]);
    expect(r1.outputs.get('review-id')).toBe(String(reviews[0]?.id));
    expect(r1.outputs.get('review-comments')).toBe('4');
    expect(r1.outputs.get('review-kept')).toBe('0');

    // A re-run on the same commit with one finding more: one comment, four kept.
    const more = await writeFindings(dir, ws, [forged, ...FINDINGS, later]);
    const r2 = await reviewStep({ rdjson: more.rdjson, sha: SHA1 });
    expect(r2.code, r2.log).toBe(0);
    expect(github.pulls.reviews.get(PR)).toHaveLength(2);
    expect(github.pulls.reviews.get(PR)?.[1]?.body).toContain(
      '1 new finding on the diff, 4 findings kept from earlier reviews',
    );
    expect((github.pulls.reviewComments.get(PR) ?? []).slice(4).map((c) => c.line)).toEqual([45]);
    expect(r2.outputs.get('review-kept')).toBe('4');

    // Again on the same commit, nothing new: no review at all.
    const r3 = await reviewStep({ rdjson: more.rdjson, sha: SHA1 });
    expect(r3.code, r3.log).toBe(0);
    expect(r3.log).toContain('nsed: no new findings on the diff (5 kept from earlier reviews): no review posted');
    expect(github.pulls.reviews.get(PR)).toHaveLength(2);
    expect(r3.outputs.get('review-id')).toBeUndefined();

    // Nothing the stand-in refused (a comment outside the diff is a 422), and the token only in its header.
    const posts = github.requests.filter((q) => q.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(github.requests.every((q) => q.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(r1.log + r2.log + r3.log).not.toContain(TOKEN);
  });

  it('is COMMENT, never APPROVE, even for a clean pass; REQUEST_CHANGES only when asked and an error is in the diff or the step failed', async () => {
    const clean = await writeFindings(dir, ws, [
      { file: 'src/retry.py', line: 11, severity: 'notice', message: 'nice' },
    ]);
    const errors = await writeFindings(dir, ws, FINDINGS);
    const cases = [
      { rdjson: clean.rdjson, sha: '3'.repeat(40), exitCode: ExitCode.ok, requestChanges: true, state: 'COMMENTED' },
      {
        rdjson: clean.rdjson,
        sha: '4'.repeat(40),
        exitCode: ExitCode.gateFailed,
        requestChanges: true,
        state: 'CHANGES_REQUESTED',
      },
      { rdjson: errors.rdjson, sha: '5'.repeat(40), exitCode: ExitCode.ok, requestChanges: false, state: 'COMMENTED' },
      {
        rdjson: errors.rdjson,
        sha: '6'.repeat(40),
        exitCode: ExitCode.ok,
        requestChanges: true,
        state: 'CHANGES_REQUESTED',
      },
    ];
    for (const c of cases) {
      const r = await reviewStep(c);
      expect(r.code, r.log).toBe(0);
      // A new push is a new head commit: it gets its review, with the findings kept counted.
      expect(github.pulls.reviews.get(PR)?.find((x) => x.commit_id === c.sha)?.state, c.sha).toBe(c.state);
    }
    const events = github.requests
      .filter((q) => q.method === 'POST' && q.path.endsWith('/reviews'))
      .map((q) => (q.body as { event: string }).event);
    expect(events).not.toContain('APPROVE');
    expect(new Set(events)).toEqual(new Set(['COMMENT', 'REQUEST_CHANGES']));
  });

  it('says so and posts nothing outside a pull request run', async () => {
    const event = join(dir, 'push.json');
    await writeFile(event, JSON.stringify({ ref: 'refs/heads/main' }));
    const before = github.requests.length;
    const r = await runScript(join(ROOT, 'action', 'review.mjs'), {
      env: {
        PATH: process.env['PATH'] ?? '',
        GITHUB_API_URL: github.url,
        GITHUB_EVENT_PATH: event,
        NSED_GITHUB_TOKEN: TOKEN,
      },
    });
    expect(r.code).toBe(0);
    expect(r.log).toBe('nsed: not a pull request run: no review to post\n');
    expect(github.requests.length).toBe(before);
  });
});
