// One comment per pull request (README "CI"): the Action's comment step (action/comment.mjs), run
// as its step runs it, against a loopback stand-in for GitHub's REST API in its documented shapes
// (test/harness/github-api.ts), over three runs on two pushes: the first run, a re-run of its job,
// and the run of a new push (another run id). The comment's key is the repository, the pull
// request, the job, its matrix leg and the step, never the run, so every run edits the comment the
// first one wrote; and only the token's own comments are candidates, so another author's comment
// holding the very same marker is left alone.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGithubFile } from '../harness/github-files.js';
import { startGithubApi, type GithubApi } from '../harness/github-api.js';
import { runScript } from '../harness/process.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TOKEN = 'ghs_comment_canary_9b2f41';
const PR = 12;
const MARKER = '<!-- nsed-council key=acme/widgets:pull/12:council:1:review -->';

let dir: string;
let github: GithubApi;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-action-comment-'));
  github = await startGithubApi({ owner: 'acme', repo: 'widgets', token: TOKEN });
});

afterAll(async () => {
  await github?.close();
  await rm(dir, { recursive: true, force: true });
});

/** action/comment.mjs with the environment action.yml gives it, for one run of the job. */
async function commentStep(run: { id: string; attempt: string; summary: string }): Promise<{
  code: number | null;
  log: string;
  outputs: Map<string, string>;
}> {
  const event = join(dir, 'event.json');
  await writeFile(event, JSON.stringify({ action: 'synchronize', number: PR, pull_request: { number: PR } }));
  const summary = join(dir, `summary-${run.id}-${run.attempt}.md`);
  await writeFile(summary, run.summary);
  const outputs = join(dir, `output-${run.id}-${run.attempt}`);
  await writeFile(outputs, '');
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    GITHUB_ACTIONS: 'true',
    GITHUB_API_URL: github.url,
    GITHUB_REPOSITORY: 'acme/widgets',
    GITHUB_EVENT_PATH: event,
    GITHUB_JOB: 'council',
    GITHUB_RUN_ID: run.id,
    GITHUB_RUN_ATTEMPT: run.attempt,
    GITHUB_OUTPUT: outputs,
    NSED_GITHUB_TOKEN: TOKEN,
    NSED_COMMENT_KEY: '',
    NSED_COMMENT_STEP: 'review',
    NSED_COMMENT_LEG: '1',
    NSED_SUMMARY_FILE: summary,
  };
  const { code, log } = await runScript(join(ROOT, 'action', 'comment.mjs'), { env });
  return { code, log, outputs: parseGithubFile(await readFile(outputs, 'utf8')) };
}

describe("the Action's pull-request comment", () => {
  it("is one comment over three runs on two pushes, edited in place; another author's marker is ignored", async () => {
    // Someone quoted the marker in a comment of their own, before any run.
    const quoted = github.seed(PR, `${MARKER}\nI copied this from the bot`, 'octocat');
    github.seed(PR, 'LGTM', 'hubot');
    const runs = [
      { id: '5001', attempt: '1', summary: '## nsed\n\nfirst push\n' },
      { id: '5001', attempt: '2', summary: '## nsed\n\nfirst push, re-run\n' },
      { id: '5002', attempt: '1', summary: '## nsed\n\nsecond push\n' },
    ];
    const ids: string[] = [];
    for (const run of runs) {
      const r = await commentStep(run);
      expect(r.code, r.log).toBe(0);
      expect(r.log).not.toContain('::warning');
      ids.push(r.outputs.get('comment-id') ?? '');
    }
    const all = github.comments.get(PR) ?? [];
    const ours = all.filter((c) => c.body.includes(MARKER) && c.user.login === 'github-actions[bot]');
    expect(ours).toHaveLength(1);
    expect(ours[0]?.body).toBe(`${MARKER}\n## nsed\n\nsecond push\n`);
    expect(ids).toEqual([String(ours[0]?.id), String(ours[0]?.id), String(ours[0]?.id)]);
    // One POST, then edits of that comment only; the quoted one was never asked to change.
    const writes = github.requests.filter((q) => q.method === 'POST' || q.method === 'PATCH');
    expect(writes.map((q) => `${q.method} ${q.path}`)).toEqual([
      `POST /repos/acme/widgets/issues/${PR}/comments`,
      `PATCH /repos/acme/widgets/issues/comments/${ours[0]?.id}`,
      `PATCH /repos/acme/widgets/issues/comments/${ours[0]?.id}`,
    ]);
    expect(quoted.body).toBe(`${MARKER}\nI copied this from the bot`);
    expect(all).toHaveLength(3);
    // The workflow's token may not read /user: it is asked, and its 403 names the bot.
    expect(github.requests.filter((q) => q.path === '/user')).toHaveLength(3);
    expect(github.requests.every((q) => q.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });
});
