// A check run of the verdict and the findings (docs/ci-review.md "A check run", src/ci/check-run.ts)
// written by the real CLI (`--check-run NAME`) and by the Action's nsed step that passes it on
// (action/run.mjs, as action.yml runs it), against the loopback stand-in for GitHub's REST API
// (test/harness/github-checks-reviews.ts, which refuses more than 50 annotations a request):
// every finding an annotation, sent 50 a request (a step's own annotations stop at 10 errors and
// 10 warnings), the pull request's head commit, the verdict as the conclusion, a re-run that
// updates the same check run without adding an annotation twice, and GitHub's token nowhere nsed
// writes. A refused token or a missing environment is one warning line; the exit code is the run's.
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { startPlainServer, type PlainServer } from '../everyday/plain-server.js';
import { parseGithubFile } from '../harness/github-files.js';
import { startGithubApi, type GithubApi } from '../harness/github-api.js';
import { CLI, runScript, spawnCli } from '../harness/process.js';
import type { ReviewFinding } from '../harness/rdjson-findings.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TOKEN = 'ghs_check_run_canary_41c7aa';
const SHA = 'a'.repeat(40);

let dir: string;
let ws: string;
let github: GithubApi;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-check-run-'));
  ws = join(dir, 'checkout');
  await mkdir(join(ws, 'src'), { recursive: true });
  await writeFile(join(ws, 'src', 'big.py'), Array.from({ length: 300 }, (_, i) => `x${i} = ${i}`).join('\n'));
  github = await startGithubApi({ owner: 'acme', repo: 'widgets', token: TOKEN });
});

afterAll(async () => {
  await github?.close();
  await rm(dir, { recursive: true, force: true });
});

const many = (n: number, from = 1): ReviewFinding[] =>
  Array.from({ length: n }, (_, i) => ({
    file: 'src/big.py',
    line: from + i,
    severity: (['error', 'warning', 'notice'] as const)[i % 3] ?? 'error',
    message: `finding ${from + i}`,
  }));

/** A pull request's event, whose head is `sha` (GITHUB_SHA is then the merge commit). */
async function eventFile(sha: string): Promise<string> {
  const event = join(dir, `event-${sha.slice(0, 1)}.json`);
  await writeFile(event, JSON.stringify({ pull_request: { number: 3, head: { sha } } }));
  return event;
}

/** The runner's variables a GitHub job gives every step. */
async function runnerEnv(o: { sha?: string; api?: string; outputs: string }): Promise<Record<string, string>> {
  return {
    GITHUB_ACTIONS: 'true',
    GITHUB_API_URL: o.api ?? github.url,
    GITHUB_REPOSITORY: 'acme/widgets',
    GITHUB_EVENT_PATH: await eventFile(o.sha ?? SHA),
    GITHUB_SHA: 'f'.repeat(40),
    GITHUB_OUTPUT: o.outputs,
  };
}

/** `nsed ask --schema review --check-run NAME` as a process, against a server answering `findings`. */
async function askWithCheckRun(o: {
  findings: ReviewFinding[];
  sha?: string;
  api?: string;
  env?: Record<string, string | undefined>;
  extra?: string[];
}): Promise<{ code: number | null; stdout: string; stderr: string; outputs: Map<string, string>; home: string }> {
  const server: PlainServer = await startPlainServer(
    JSON.stringify({ summary: 'A review.', verdict: 'comment', findings: o.findings }),
  );
  const out = await mkdtemp(join(dir, 'run-'));
  const outputs = join(out, 'outputs');
  await writeFile(outputs, '');
  const home = join(out, 'home');
  try {
    const r = await spawnCli(
      [
        'ask',
        '-m',
        'llama3.2',
        '--schema',
        'review',
        '--workspace',
        ws,
        '--summary',
        join(out, 'summary.md'),
        '--check-run',
        'nsed council',
        ...(o.extra ?? []),
        'Review the change',
      ],
      {
        env: {
          ...(await runnerEnv({
            outputs,
            ...(o.sha === undefined ? {} : { sha: o.sha }),
            ...(o.api === undefined ? {} : { api: o.api }),
          })),
          NSED_HOME: home,
          NSED_URL: server.url,
          NO_COLOR: '1',
          GITHUB_TOKEN: TOKEN,
          ...o.env,
        },
      },
    ).result;
    return { ...r, outputs: parseGithubFile(await readFile(outputs, 'utf8')), home };
  } finally {
    await server.close();
  }
}

/** Every file under `root`, read whole, for the token check. */
async function allText(root: string): Promise<string> {
  let text = '';
  for (const e of await readdir(root, { recursive: true, withFileTypes: true }))
    if (e.isFile()) text += await readFile(join(e.parentPath, e.name), 'utf8');
  return text;
}

describe('--check-run NAME through the real CLI (reliability #320)', () => {
  it('writes 120 findings as annotations in requests of 50 on the head commit, the summary as its text; a re-run updates the same check run and adds only the new one', async () => {
    const before0 = github.requests.length;
    const r1 = await askWithCheckRun({ findings: many(120) });
    expect(r1.code, r1.stderr).toBe(0);
    expect(r1.stderr).toContain('nsed: wrote check run "nsed council" (success, 120 annotations)');
    expect(r1.stderr).not.toContain('::warning');
    const run = github.pulls.checkRuns.find((c) => c.head_sha === SHA);
    // The pull request's head, not GITHUB_SHA (a pull request's merge commit).
    expect(run?.name).toBe('nsed council');
    expect(run?.conclusion).toBe('success');
    expect(run?.status).toBe('completed');
    expect(run?.output.title).toBe('nsed council passed: 120 findings');
    expect(run?.output.summary).toContain('A review.');
    expect(run?.annotations).toHaveLength(120);
    expect(run?.annotations[0]).toEqual({
      path: 'src/big.py',
      start_line: 1,
      end_line: 1,
      annotation_level: 'failure',
      message: 'finding 1',
    });
    expect(run?.annotations.map((a) => a.annotation_level).slice(0, 3)).toEqual(['failure', 'warning', 'notice']);
    const writes = github.requests.slice(before0).filter((q) => q.method === 'POST' || q.method === 'PATCH');
    expect(
      writes.map((q) => `${q.method} ${(q.body as { output: { annotations: unknown[] } }).output.annotations.length}`),
    ).toEqual(['POST 50', 'PATCH 50', 'PATCH 20']);
    expect(r1.outputs.get('check-run-id')).toBe(String(run?.id));
    expect(r1.outputs.get('check-run-url')).toBe(run?.html_url);

    // A re-run whose gate is inconclusive (a plain server reports no convergence), with one
    // finding more: the same check run, neutral, 121 annotations, each once.
    const before = github.requests.length;
    const r2 = await askWithCheckRun({ findings: many(121), extra: ['--min-convergence', '0.8'] });
    expect(r2.code, r2.stderr).toBe(ExitCode.inconclusive);
    expect(r2.stderr).toContain('nsed: updated check run "nsed council" (neutral, 121 annotations)');
    expect(github.pulls.checkRuns.filter((c) => c.head_sha === SHA)).toHaveLength(1);
    expect(run?.conclusion).toBe('neutral');
    expect(run?.output.title).toBe('nsed council inconclusive: 121 findings');
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
    const written = r1.stdout + r1.stderr + r2.stdout + r2.stderr + (await allText(r1.home)) + (await allText(r2.home));
    expect(written).not.toContain(TOKEN);
    expect([...r1.outputs.values(), ...r2.outputs.values()].join('')).not.toContain(TOKEN);
  });

  it('is one warning line and the run’s own exit code when GitHub refuses the token', async () => {
    const other = await startGithubApi({ owner: 'acme', repo: 'widgets', token: 'another-token' });
    try {
      const r = await askWithCheckRun({ findings: many(2), api: other.url, sha: 'b'.repeat(40) });
      expect(r.code, r.stderr).toBe(0);
      const warnings = r.stderr.split('\n').filter((l) => l.includes('check run'));
      expect(warnings).toEqual([
        `::warning title=nsed check run::the check run "nsed council" was not written: GET /repos/acme/widgets/commits/${'b'.repeat(40)}/check-runs answered 401: Bad credentials`,
      ]);
      expect(r.stderr + r.stdout).not.toContain(TOKEN);
      expect(r.outputs.has('check-run-id')).toBe(false);
    } finally {
      await other.close();
    }
  });

  it('is one warning line naming the missing variable when there is no GitHub token, outside GitHub Actions', async () => {
    const r = await askWithCheckRun({
      findings: many(1),
      sha: 'c'.repeat(40),
      env: { GITHUB_TOKEN: undefined, GITHUB_ACTIONS: undefined },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l.includes('check run'))).toEqual([
      'nsed: warning: the check run "nsed council" was not written: no GITHUB_TOKEN (or GH_TOKEN) in the environment',
    ]);
    expect(github.pulls.checkRuns.some((c) => c.head_sha === 'c'.repeat(40))).toBe(false);
  });

  it("writes a batch's check run: its exit code's conclusion, its summary as the text, no annotations", async () => {
    const server = await startPlainServer('An answer.');
    const out = await mkdtemp(join(dir, 'batch-'));
    const outputs = join(out, 'outputs');
    await writeFile(outputs, '');
    await writeFile(join(out, 'items.txt'), 'q one\nq two\n');
    const sha = 'e'.repeat(40);
    try {
      const r = await spawnCli(
        [
          'batch',
          join(out, 'items.txt'),
          '-m',
          'llama3.2',
          '--out',
          join(out, 'results.jsonl'),
          '--check-run',
          'nsed batch',
        ],
        {
          env: {
            ...(await runnerEnv({ sha, outputs })),
            NSED_HOME: join(out, 'home'),
            NSED_URL: server.url,
            NO_COLOR: '1',
            GITHUB_TOKEN: TOKEN,
          },
        },
      ).result;
      expect(r.code, r.stderr).toBe(0);
      const run = github.pulls.checkRuns.find((c) => c.head_sha === sha);
      expect(run?.name).toBe('nsed batch');
      expect(run?.conclusion).toBe('success');
      expect(run?.output.summary).toContain('nsed batch');
      expect(run?.annotations).toEqual([]);
      expect(parseGithubFile(await readFile(outputs, 'utf8')).get('check-run-id')).toBe(String(run?.id));
      expect(r.stdout + r.stderr + (await allText(out))).not.toContain(TOKEN);
    } finally {
      await server.close();
    }
  });

  it('refuses an empty name before anything is asked (exit 2)', async () => {
    const r = await spawnCli(['ask', '-m', 'llama3.2', '--check-run', ' ', 'hi'], {
      env: { NSED_HOME: join(dir, 'empty-name'), NSED_URL: 'http://127.0.0.1:9' },
    }).result;
    expect(r.code).toBe(ExitCode.usage);
    expect(r.stderr).toContain('--check-run needs a name');
  });
});

describe("the Action's check-run input passes --check-run to nsed (reliability #320)", () => {
  it('writes the check run from the nsed step with the github-token, and gives check-run-id as its output', async () => {
    // The Action's checkout, as `uses:` fetches one, with this test run's build in it.
    const action = await mkdtemp(join(dir, 'action-'));
    await cp(join(ROOT, 'action'), join(action, 'action'), { recursive: true });
    await symlink(dirname(CLI), join(action, 'bin'), 'dir');
    await cp(join(ROOT, 'package.json'), join(action, 'package.json'));
    const server = await startPlainServer(
      JSON.stringify({ summary: 'A review.', verdict: 'comment', findings: many(60) }),
    );
    const temp = await mkdtemp(join(dir, 'runner-'));
    const outputs = join(temp, 'outputs');
    await writeFile(outputs, '');
    const sha = 'd'.repeat(40);
    try {
      const { code, log } = await runScript(join(action, 'action', 'run.mjs'), {
        cwd: ws,
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: process.env['HOME'] ?? '',
          ...(await runnerEnv({ sha, outputs })),
          RUNNER_TEMP: temp,
          NSED_HOME: join(temp, 'home'),
          INPUT_PROMPT: 'Review the change',
          INPUT_MODEL: 'llama3.2',
          INPUT_SCHEMA: 'review',
          INPUT_URL: server.url,
          INPUT_CHECK_RUN: 'nsed council',
          INPUT_JUNIT: 'nsed-junit.xml',
          INPUT_SUMMARY: 'true',
          NSED_GITHUB_TOKEN: TOKEN,
        },
      });
      expect(code, log).toBe(0);
      const run = github.pulls.checkRuns.find((c) => c.head_sha === sha);
      expect(run?.conclusion).toBe('success');
      expect(run?.annotations).toHaveLength(60);
      const out = parseGithubFile(await readFile(outputs, 'utf8'));
      expect(out.get('check-run-id')).toBe(String(run?.id));
      expect(log).not.toContain(TOKEN);
      expect(await allText(temp)).not.toContain(TOKEN);
    } finally {
      await server.close();
    }
  });
});
