// The GitHub Action (action.yml) run end to end as a runner runs a composite action
// (test/harness/action-runner.ts), against `nsed sim` and a loopback stand-in for GitHub's REST
// API (test/harness/github-api.ts): every step with the runner's variables, the outputs read
// back from the $GITHUB_OUTPUT files the steps wrote, the step summary, the JUnit file, the
// annotations, the pull-request comment created once and then updated in place, and a re-run of
// the job on a fresh runner that re-attaches to the deliberation instead of paying again
// (reliability #196, #197). The action is run from a copy of the checkout, as `uses:` fetches one,
// with this checkout's installed dependencies linked in (the cache hit of a warm runner).
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutAction, runAction, type ActionRun, type UsesStandIn } from '../harness/action-runner.js';
import { startGithubApi, type GithubApi } from '../harness/github-api.js';
import { useRig } from '../harness/rig.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NSED_TOKEN = 'sk-nsed-action-canary-7f3a9c';
const GITHUB_TOKEN = 'ghs_action_canary_5d1e2b';
const PR = 7;
/** The comment's key: the repository, the pull request, the job, its matrix leg, the step; never the run. */
const REVIEW_KEY = 'acme/widgets:pull/7:council:0:review';

let dir: string;
let actionPath: string;
const rig = useRig({ control: true });
let github: GithubApi;
const used: Array<{ action: string; with: Record<string, string> }> = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-action-'));
  actionPath = join(dir, 'action');
  await checkoutAction(ROOT, actionPath);
  // The test control (`/_sim/stats`: how many deliberations were started) without holding any.
  github = await startGithubApi({ owner: 'acme', repo: 'widgets', token: GITHUB_TOKEN });
  // A busy pull request: the action's comment is found past the first page of 100.
  for (let i = 0; i < 130; i++) github.seed(PR, `comment ${i}`);
  github.seed(PR, '<!-- nsed-council key=someone-elses-key -->\nnot ours');
}, 120_000);

afterAll(async () => {
  await github?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The stand-ins for the actions action.yml uses: setup-node (the test's node is there) and a warm cache. */
const standIns: Record<string, UsesStandIn> = {
  'actions/setup-node': async (w) => {
    used.push({ action: 'actions/setup-node', with: w });
    return { 'node-version': process.version };
  },
  'actions/cache': async (w) => {
    used.push({ action: 'actions/cache', with: w });
    const paths = (w['path'] ?? '').split('\n').filter((p) => p.trim() !== '');
    const hit = (
      await Promise.all(
        paths.map((p) =>
          stat(p.trim()).then(
            () => true,
            () => false,
          ),
        ),
      )
    ).every(Boolean);
    return { 'cache-hit': hit ? 'true' : 'false' };
  },
};

interface Runner {
  workspace: string;
  temp: string;
}

/** A fresh runner: its own workspace (the checkout, with the change to review) and RUNNER_TEMP. */
async function freshRunner(
  name: string,
  event: Record<string, unknown> = { pull_request: { number: PR } },
): Promise<Runner> {
  const workspace = join(dir, name, 'workspace');
  const temp = join(dir, name, 'temp');
  await mkdir(workspace, { recursive: true });
  await mkdir(temp, { recursive: true });
  await writeFile(
    join(workspace, 'change.diff'),
    '--- a/retry.py\n+++ b/retry.py\n@@ -1 +1 @@\n-retries = 3\n+retries = 0\n',
  );
  await writeFile(join(temp, 'event.json'), JSON.stringify({ action: 'synchronize', number: PR, ...event }));
  return { workspace, temp };
}

async function run(runner: Runner, inputs: Record<string, string>, attempt = 1, stepId = 'review'): Promise<ActionRun> {
  return runAction({
    actionPath,
    workspace: runner.workspace,
    inputs,
    uses: standIns,
    github: { token: GITHUB_TOKEN, action: stepId },
    strategy: { 'job-index': '0', 'job-total': '1' },
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '',
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_RUN_ID: '4242',
      GITHUB_RUN_ATTEMPT: String(attempt),
      GITHUB_JOB: 'council',
      GITHUB_REPOSITORY: 'acme/widgets',
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: join(runner.temp, 'event.json'),
      GITHUB_API_URL: github.url,
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_WORKSPACE: runner.workspace,
      RUNNER_TEMP: runner.temp,
      RUNNER_OS: 'Linux',
    },
  });
}

const stepOf = (r: ActionRun, id: string) => r.steps.find((s) => s.id === id);
const started = async (): Promise<number> =>
  ((await (await fetch(`${rig.sim.url}/_sim/stats`)).json()) as { started: number }).started;
const marked = (key: string) => (github.comments.get(PR) ?? []).filter((c) => c.body.includes(`key=${key} -->`));

/** Every file under `root`, read whole, for the token check. */
async function allText(root: string): Promise<string> {
  let out = '';
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) out += await readFile(join(entry.parentPath, entry.name), 'utf8');
  return out;
}

describe('the GitHub Action, run as a runner runs it', () => {
  const review = {
    prompt: 'Review this change for correctness and risk',
    files: 'change.diff',
    policy: 'fast',
    'min-convergence': '10%',
    comment: 'true',
    url: '',
    token: NSED_TOKEN,
  };

  it('asks, gates, sets outputs, writes summary, JUnit and annotations, and comments once; a re-run re-attaches and updates the same comment (reliability #196, #197)', async () => {
    const first = await freshRunner('first');
    const before = await started();
    const r1 = await run(first, { ...review, url: rig.sim.url });
    const nsed1 = stepOf(r1, 'nsed');
    expect(r1.outcome, nsed1?.log).toBe('success');
    // The steps ran as on a warm runner: node set up, the cache hit, so no install; then the build.
    expect(r1.steps.map((s) => `${s.name}: ${s.outcome}`)).toEqual([
      'Set up Node.js: success',
      'Key the dependency cache: success',
      "Restore nsed's dependencies: success",
      "Install nsed's dependencies: skipped",
      'Build nsed: success',
      'Ask the council: success',
      "Keep the pull request's comment up to date: success",
      'Review the pull request: skipped',
    ]);
    expect(used.find((u) => u.action === 'actions/cache')?.with['key']).toMatch(
      /^nsed-action-Linux-v\d+\.\d+\.\d+-[0-9a-f]{16}$/,
    );
    expect(await started()).toBe(before + 1);

    const out1 = r1.outputs;
    expect(out1['session-id']).toMatch(/^\d{8}-[0-9a-f]+$/);
    expect(out1['job-id']).toMatch(/^oc-thread-/);
    expect(out1['status']).toBe('complete');
    expect(out1['exit-code']).toBe('0');
    expect(out1['gate']).toBe('pass');
    expect(Number(out1['convergence'])).toBeGreaterThanOrEqual(0.1);
    expect(out1['chosen-agent']).toMatch(/^Cortex/);
    expect(out1['idempotency-key']).toBe('4242-council-0-review');
    const answer = await readFile(out1['answer-file'] ?? '', 'utf8');
    expect(answer.trim()).not.toBe('');
    // The step summary, the JUnit file in the workspace, the annotations in the log.
    expect(r1.summary).toMatch(/^## nsed/);
    expect(out1['junit-file']).toBe(join(first.workspace, 'nsed-junit.xml'));
    const junit = await readFile(out1['junit-file'] ?? '', 'utf8');
    expect(junit).toContain('<testsuite name="Review this change for correctness and risk"');
    expect(junit).toContain(`<property name="job" value="${out1['job-id']}"/>`);
    expect(nsed1?.log).toContain('::notice title=nsed council::');

    // One comment, found past the first page, carrying the marker with the key.
    const posts = github.requests.filter((q) => q.method === 'POST');
    expect(posts.map((q) => q.path)).toEqual([`/repos/acme/widgets/issues/${PR}/comments`]);
    const ours = marked(REVIEW_KEY);
    expect(ours).toHaveLength(1);
    expect(out1['comment-id']).toBe(String(ours[0]?.id));
    expect(ours[0]?.body).toContain(r1.summary.split('\n')[0]);
    const listings = github.requests.filter((q) => q.method === 'GET' && q.path.endsWith('/comments'));
    expect(listings.map((q) => q.query['page'] ?? '1')).toEqual(['1', '2']);
    expect(github.requests.every((q) => q.authorization === `Bearer ${GITHUB_TOKEN}`)).toBe(true);

    // The job re-run (attempt 2) on a new runner: an empty store, the same key.
    github.requests.length = 0;
    const second = await freshRunner('second');
    const r2 = await run(second, { ...review, url: rig.sim.url }, 2);
    expect(r2.outcome, stepOf(r2, 'nsed')?.log).toBe('success');
    expect(await started()).toBe(before + 1);
    expect(r2.outputs['job-id']).toBe(out1['job-id']);
    expect(r2.outputs['chosen-agent']).toBe(out1['chosen-agent']);
    expect(r2.outputs['convergence']).toBe(out1['convergence']);
    expect(r2.outputs['exit-code']).toBe('0');
    expect(github.requests.filter((q) => q.method === 'POST')).toEqual([]);
    expect(github.requests.filter((q) => q.method === 'PATCH').map((q) => q.path)).toEqual([
      `/repos/acme/widgets/issues/comments/${out1['comment-id']}`,
    ]);
    expect(marked(REVIEW_KEY)).toHaveLength(1);
    expect(r2.outputs['comment-id']).toBe(out1['comment-id']);

    // Neither token in any file the runs left, nor in any log.
    for (const root of [first.workspace, first.temp, second.workspace, second.temp]) {
      const text = await allText(root);
      expect(text).not.toContain(NSED_TOKEN);
      expect(text).not.toContain(GITHUB_TOKEN);
    }
    for (const s of [...r1.steps, ...r2.steps]) {
      expect(s.log).not.toContain(NSED_TOKEN);
      expect(s.log).not.toContain(GITHUB_TOKEN);
    }
  }, 180_000);

  it("fails the step with nsed's exit code when the gate fails, and still keeps the comment up to date", async () => {
    const runner = await freshRunner('gated');
    github.requests.length = 0;
    const r = await run(runner, { ...review, url: rig.sim.url, 'min-score': '1.5' }, 1, 'strict');
    expect(r.outcome).toBe('failure');
    expect(stepOf(r, 'nsed')?.exitCode).toBe(12);
    expect(r.outputs['exit-code']).toBe('12');
    expect(r.outputs['gate']).toBe('fail');
    expect(stepOf(r, 'comment')?.outcome).toBe('success');
    expect(marked('acme/widgets:pull/7:council:0:strict')).toHaveLength(1);
  }, 180_000);

  it('runs a batch: counts per status as outputs, the JUnit suite named for the batch file', async () => {
    const runner = await freshRunner('batch', {});
    await writeFile(
      join(runner.workspace, 'items.jsonl'),
      '{"id":"cache","prompt":"Design a cache"}\n{"id":"queue","prompt":"Design a queue"}\n',
    );
    github.requests.length = 0;
    const r = await run(
      runner,
      { batch: 'items.jsonl', policy: 'fast', url: rig.sim.url, comment: 'true' },
      1,
      'items',
    );
    expect(r.outcome, stepOf(r, 'nsed')?.log).toBe('success');
    expect(r.outputs).toMatchObject({
      items: '2',
      'items-ok': '2',
      'items-gate-failed': '0',
      'exit-code': '0',
      status: 'ok',
    });
    const junit = await readFile(join(runner.workspace, 'nsed-junit.xml'), 'utf8');
    expect(junit).toContain('<testsuite name="items.jsonl"');
    expect((await readFile(r.outputs['results-file'] ?? '', 'utf8')).trim().split('\n')).toHaveLength(2);
    // Not a pull request's run: nothing is asked of the API.
    expect(stepOf(r, 'comment')?.log).toContain('not a pull request run');
    expect(github.requests).toEqual([]);
  }, 180_000);

  it('passes the spend cap on: a batch whose cap leaves no room for an item starts none, fails with exit 15 and counts them in items-skipped', async () => {
    const runner = await freshRunner('capped', {});
    await writeFile(
      join(runner.workspace, 'items.jsonl'),
      '{"id":"cache","prompt":"Design a cache"}\n{"id":"queue","prompt":"Design a queue"}\n',
    );
    const before = await started();
    const r = await run(
      runner,
      { batch: 'items.jsonl', policy: 'fast', url: rig.sim.url, 'max-cost': '0.000001' },
      1,
      'capped',
    );
    expect(r.outcome, stepOf(r, 'nsed')?.log).toBe('failure');
    expect(stepOf(r, 'nsed')?.exitCode).toBe(15);
    expect(r.outputs).toMatchObject({ items: '2', 'items-skipped': '2', 'items-ok': '0', 'exit-code': '15' });
    expect(await started()).toBe(before);
  }, 180_000);

  it('refuses a run with nothing to ask, exit 2, before anything is sent', async () => {
    const runner = await freshRunner('empty');
    const before = await started();
    const r = await run(runner, { url: rig.sim.url }, 1, 'empty');
    expect(r.outcome).toBe('failure');
    expect(stepOf(r, 'nsed')?.exitCode).toBe(2);
    expect(stepOf(r, 'nsed')?.log).toContain('::error title=nsed action::give the action a prompt');
    expect(await started()).toBe(before);
  }, 180_000);
});
