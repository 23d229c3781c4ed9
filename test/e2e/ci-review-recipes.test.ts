// The recipes of docs/ci-review.md, each run end to end as GitHub would run the workflow: its job's
// steps through the runner emulation (test/harness/action-runner.ts), `uses: OWNER/nsed@REF` the
// real action.yml from a copy of this checkout (run by the same emulation), against `nsed sim` and
// the loopback stand-in for GitHub's REST API. The fork recipe (pull_request_target) checks out
// the base only and hands the diff over as data: a diff whose lines are shell, which would leave
// a file behind if anything ran them, leaves nothing. The reviewdog recipe pipes --rdjson to a
// stand-in `reviewdog` that records what it was given (reviewdog itself is not installable
// offline): reviewdog's flags and an rdjsonl file valid by its Diagnostic schema.
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { checkoutAction, runAction, type ActionRun, type UsesStandIn } from '../harness/action-runner.js';
import { startGithubApi, type GithubApi } from '../harness/github-api.js';
import { rdjsonErrors } from '../harness/rdjson-schema.js';
import { useRig } from '../harness/rig.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NSED_TOKEN = 'sk-nsed-recipe-canary-3e81';
const GITHUB_TOKEN = 'ghs_recipe_canary_90af12';
const PR = 31;
const BASE = 'b'.repeat(40);
const HEAD = 'c'.repeat(40);
/** The base's file: 20 lines, the ones the council's findings point at. */
const RETRY = Array.from({ length: 20 }, (_, i) => `step_${i + 1}()`).join('\n');

const rig = useRig();
let dir: string;
let actionPath: string;
let github: GithubApi;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-recipes-'));
  actionPath = join(dir, 'action');
  await checkoutAction(ROOT, actionPath);
  github = await startGithubApi({ owner: 'acme', repo: 'widgets', token: GITHUB_TOKEN });
}, 120_000);

afterAll(async () => {
  await github?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The workflow a recipe of docs/ci-review.md shows: the ```yaml block after `<!-- recipe: NAME -->`. */
async function recipe(
  name: string,
): Promise<{ on: unknown; jobs: Record<string, { steps: Array<Record<string, unknown>> }> }> {
  const doc = await readFile(join(ROOT, 'docs', 'ci-review.md'), 'utf8');
  const m = new RegExp(`<!-- recipe: ${name} -->\\n\`\`\`yaml\\n([\\s\\S]*?)\\n\`\`\``).exec(doc);
  if (m === null) throw new Error(`docs/ci-review.md has no recipe ${name}`);
  return parse(m[1] ?? '') as Awaited<ReturnType<typeof recipe>>;
}

/** What the recipe's job did: its steps, the nsed action's own run, the checkouts it asked for. */
interface JobRun {
  job: ActionRun;
  nsed: ActionRun[];
  checkouts: Array<Record<string, string>>;
  workspace: string;
  temp: string;
}

/**
 * Runs the recipe's one job on a fresh runner: its steps as a composite (a run step's shell is
 * bash, as a workflow's default on Linux), the payload as `github.event`.
 */
async function runRecipe(
  name: string,
  event: Record<string, unknown>,
  eventName: string,
  bin: string,
): Promise<JobRun> {
  const wf = await recipe(name);
  const job = Object.values(wf.jobs)[0];
  const jobDir = join(dir, name, 'job');
  const workspace = join(dir, name, 'workspace');
  const temp = join(dir, name, 'temp');
  for (const d of [jobDir, workspace, temp]) await mkdir(d, { recursive: true });
  const steps = (job?.steps ?? []).map((s) =>
    s['run'] !== undefined && s['shell'] === undefined ? { ...s, shell: 'bash' } : s,
  );
  await writeFile(join(jobDir, 'action.yml'), stringify({ name, runs: { using: 'composite', steps } }));
  await writeFile(join(temp, 'event.json'), JSON.stringify(event));
  const env: Record<string, string> = {
    PATH: `${bin}:${process.env['PATH'] ?? ''}`,
    HOME: process.env['HOME'] ?? '',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    // Each recipe its own workflow run (and so its own idempotency key).
    GITHUB_RUN_ID: String(777 + Object.keys(runs).length),
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_JOB: 'review',
    GITHUB_REPOSITORY: 'acme/widgets',
    GITHUB_EVENT_NAME: eventName,
    GITHUB_EVENT_PATH: join(temp, 'event.json'),
    // pull_request_target runs on the base's last commit; pull_request on a merge commit.
    GITHUB_SHA: eventName === 'pull_request_target' ? BASE : 'd'.repeat(40),
    GITHUB_API_URL: github.url,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: temp,
    RUNNER_OS: 'Linux',
  };
  const nsed: ActionRun[] = [];
  const checkouts: Array<Record<string, string>> = [];
  const inner: Record<string, UsesStandIn> = {
    'actions/setup-node': async () => ({ 'node-version': process.version }),
    'actions/cache': async () => ({ 'cache-hit': 'true' }),
  };
  const uses: Record<string, UsesStandIn> = {
    // The checkout: the base's files, whatever ref is asked (the test checks which one was).
    'actions/checkout': async (w) => {
      checkouts.push(w);
      await mkdir(join(workspace, 'src'), { recursive: true });
      await writeFile(join(workspace, 'src', 'retry.py'), RETRY);
      return {};
    },
    'reviewdog/action-setup': async () => ({}),
    'OWNER/nsed': async (w) => {
      const r = await runAction({
        actionPath,
        workspace,
        inputs: w,
        uses: inner,
        github: { token: GITHUB_TOKEN, action: 'council' },
        event,
        env,
      });
      nsed.push(r);
      return r.outputs;
    },
  };
  runs[name] = true;
  const run = await runAction({
    actionPath: jobDir,
    workspace,
    inputs: {},
    uses,
    github: { token: GITHUB_TOKEN, action: '__run' },
    event,
    secrets: { NSED_TOKEN },
    vars: { NSED_URL: rig.sim.url },
    env,
  });
  return { job: run, nsed, checkouts, workspace, temp };
}

/** The recipes run so far, by name. */
const runs: Record<string, true> = {};

const logs = (r: JobRun): string => [...r.job.steps, ...r.nsed.flatMap((n) => n.steps)].map((s) => s.log).join('\n');

/** Every file a job left in its workspace and its runner's temp, read whole, for the token check. */
async function leftText(r: JobRun): Promise<string> {
  let out = '';
  for (const root of [r.workspace, r.temp])
    for (const entry of await readdir(root, { recursive: true, withFileTypes: true }))
      if (entry.isFile()) out += await readFile(join(entry.parentPath, entry.name), 'utf8');
  return out;
}

/** A bin folder holding `reviewdog`: records its arguments, whether it got a token, and its stdin. */
async function fakeReviewdog(): Promise<{ bin: string; record: string }> {
  const bin = join(dir, 'bin');
  await mkdir(bin, { recursive: true });
  const record = join(dir, 'reviewdog.json');
  const script = join(bin, 'reviewdog.mjs');
  await writeFile(
    script,
    [
      "import { readFileSync, writeFileSync } from 'node:fs';",
      "const stdin = readFileSync(0, 'utf8');",
      `writeFileSync(${JSON.stringify(record)}, JSON.stringify({ args: process.argv.slice(2), token: (process.env.REVIEWDOG_GITHUB_API_TOKEN ?? '') !== '', stdin }));`,
    ].join('\n'),
  );
  await writeFile(join(bin, 'reviewdog'), `#!/bin/sh\nexec node ${JSON.stringify(script)} "$@"\n`);
  await chmod(join(bin, 'reviewdog'), 0o755);
  return { bin, record };
}

describe('the recipes of docs/ci-review.md, run end to end (reliability #206)', () => {
  it('a fork pull request through pull_request_target: the base checked out only, the diff read as data and never run, a check run and a review on the head commit', async () => {
    const hunk = [
      '@@ -1,8 +1,9 @@',
      ' step_1()',
      ' step_2()',
      '-step_3()',
      '+$(touch "$GITHUB_WORKSPACE/pwned")',
      '+`touch "$RUNNER_TEMP/pwned"`; step_3()',
      ' step_4()',
      ' step_5()',
      ' step_6()',
      ' step_7()',
      ' step_8()',
    ].join('\n');
    github.pulls.diffs.set(
      PR,
      `diff --git a/src/retry.py b/src/retry.py\n--- a/src/retry.py\n+++ b/src/retry.py\n${hunk}\n`,
    );
    github.pulls.files.set(PR, [{ filename: 'src/retry.py', status: 'modified', patch: hunk }]);
    const event = {
      action: 'synchronize',
      number: PR,
      pull_request: {
        number: PR,
        url: `${github.url}/repos/acme/widgets/pulls/${PR}`,
        head: { sha: HEAD, ref: 'patch-1', repo: { full_name: 'mallory/widgets', fork: true } },
        base: { sha: BASE, ref: 'main', repo: { full_name: 'acme/widgets', fork: false } },
      },
    };
    const { bin } = await fakeReviewdog();
    const r = await runRecipe('fork', event, 'pull_request_target', bin);
    expect(r.job.outcome, logs(r)).toBe('success');
    expect(r.nsed[0]?.outcome, logs(r)).toBe('success');
    // The base, by its commit, and no credentials left in the checkout.
    expect(r.checkouts).toEqual([{ ref: BASE, 'persist-credentials': 'false' }]);
    // The diff was read from the API and given on stdin: not in the prompt, and none of its shell ran.
    const read = github.requests.filter((q) => q.method === 'GET' && q.path === `/repos/acme/widgets/pulls/${PR}`);
    expect(read).toHaveLength(1);
    expect(read[0]?.authorization).toBe(`Bearer ${GITHUB_TOKEN}`);
    const nsedWith = r.job.steps.find((s) => s.name === 'Ask the council')?.with ?? {};
    expect(nsedWith['prompt']).not.toContain('touch');
    expect(nsedWith['prompt-file']).toBe(join(r.temp, 'change.txt'));
    for (const place of [r.workspace, r.temp])
      await expect(stat(join(place, 'pwned')), `${place}/pwned`).rejects.toThrow();
    // The check run and the review, both on the pull request's head (not GITHUB_SHA, the base).
    const check = github.pulls.checkRuns.find((c) => c.name === 'nsed council');
    expect(check?.head_sha).toBe(HEAD);
    expect(check?.conclusion).toBe('success');
    expect(check?.annotations.length).toBeGreaterThan(0);
    for (const a of check?.annotations ?? []) expect(a.path).toBe('src/retry.py');
    const reviews = github.pulls.reviews.get(PR) ?? [];
    expect(reviews.map((v) => [v.commit_id, v.state])).toEqual([[HEAD, 'COMMENTED']]);
    const comments = github.pulls.reviewComments.get(PR) ?? [];
    expect(comments.length).toBeGreaterThan(0);
    for (const c of comments) expect([c.path, c.line >= 1 && c.line <= 9]).toEqual(['src/retry.py', true]);
    expect(r.nsed[0]?.outputs['review-comments']).toBe(String(comments.length));
    // Neither token in a log, nor in any file the job left.
    for (const text of [logs(r), await leftText(r)]) {
      expect(text).not.toContain(NSED_TOKEN);
      expect(text).not.toContain(GITHUB_TOKEN);
    }
  }, 240_000);

  it("reviewdog reading --rdjson: the Action's rdjson file piped to reviewdog with its token, valid by reviewdog's schema", async () => {
    const { bin, record } = await fakeReviewdog();
    const event = { action: 'opened', number: PR + 1, pull_request: { number: PR + 1, head: { sha: HEAD } } };
    const r = await runRecipe('reviewdog', event, 'pull_request', bin);
    expect(r.job.outcome, logs(r)).toBe('success');
    expect(r.nsed[0]?.outcome, logs(r)).toBe('success');
    expect(r.job.steps.map((s) => `${s.name}: ${s.outcome}`).at(-1)).toBe('Comment through reviewdog: success');
    const got = JSON.parse(await readFile(record, 'utf8')) as { args: string[]; token: boolean; stdin: string };
    expect(got.args).toEqual(['-f=rdjsonl', '-name=nsed', '-reporter=github-pr-review', '-filter-mode=added']);
    expect(got.token).toBe(true);
    expect(rdjsonErrors(got.stdin)).toEqual([]);
    const lines = got.stdin.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect((JSON.parse(l) as { location: { path: string } }).location.path).toBe('src/retry.py');
    expect(r.nsed[0]?.outputs['rdjson-file']).toBe(join(r.workspace, 'nsed.rdjsonl'));
    expect(logs(r)).not.toContain(NSED_TOKEN);
    expect(logs(r)).not.toContain(GITHUB_TOKEN);
  }, 240_000);
});
