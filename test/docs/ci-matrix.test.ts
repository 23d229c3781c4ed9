// docs/ci-matrix.md's GitHub workflow, run as GitHub runs it, against `nsed sim` over real HTTP:
// a small runner emulation takes the workflow from the doc as written and runs its jobs in
// order (plan, each leg of the matrix its `fromJSON` gives, then merge), each `run:` step a fresh
// `bash --noprofile --norc -eo pipefail` with its own GITHUB_OUTPUT file, `${{ … }}` substituted
// from the contexts the steps read (vars, secrets, matrix, needs, steps, strategy), `if:` judged
// (success() unless always()), artifacts uploaded and downloaded through a folder, and the nsed
// Action (`uses: nsed/nsed@v1`) run from a copy of this checkout by the composite-action runner
// (test/harness/action-runner.ts). The one step replaced is `npm install --global nsed`: the
// built CLI is on PATH instead.
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseJunit, type TestSuites } from 'junit2json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkoutAction, runAction, type UsesStandIn } from '../harness/action-runner.js';
import { runProcess } from '../harness/process.js';
import { junitSchemaErrors } from '../harness/junit-schema.js';
import { deliberations } from '../harness/batch-rig.js';
import { CLI, useRig } from '../harness/rig.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOC = join(ROOT, 'docs', 'ci-matrix.md');
const NSED_TOKEN = 'sk-nsed-matrix-canary-41c9';

interface Step {
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Job {
  needs?: string | string[];
  if?: string;
  outputs?: Record<string, string>;
  strategy?: { matrix?: unknown };
  steps: Step[];
}
interface Workflow {
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

/** The doc's fenced blocks of one language, in order. */
async function blocks(lang: string): Promise<string[]> {
  const text = await readFile(DOC, 'utf8');
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === lang).map((m) => m[2] ?? '');
}

/** What `${{ … }}` may read in this workflow. */
interface Contexts {
  vars: Record<string, string>;
  secrets: Record<string, string>;
  matrix: Record<string, string>;
  needs: Record<string, { outputs: Record<string, string>; result: string }>;
  steps: Record<string, { outputs: Record<string, string> }>;
  strategy: Record<string, string>;
}

/** One expression of the few forms the workflow uses: a context path, or fromJSON(path). */
function evaluate(expr: string, c: Contexts): unknown {
  const e = expr.trim();
  const fromJson = /^fromJSON\((.*)\)$/.exec(e);
  if (fromJson !== null) return JSON.parse(String(evaluate(fromJson[1] ?? '', c)));
  let v: unknown = c;
  for (const part of e.split('.')) v = (v as Record<string, unknown> | undefined)?.[part];
  if (v === undefined) throw new Error(`the emulation cannot read \${{ ${e} }}`);
  return v;
}

const substitute = (text: string, c: Contexts): string =>
  text.replace(/\$\{\{(.*?)\}\}/g, (_, e: string) => String(evaluate(e, c)));

const substituteAll = (o: Record<string, string> | undefined, c: Contexts): Record<string, string> =>
  Object.fromEntries(Object.entries(o ?? {}).map(([k, v]) => [k, substitute(String(v), c)]));

/** `if:` as the workflow writes it: always(), else success(). */
const runs = (cond: string | undefined, failed: boolean): boolean =>
  cond?.includes('always()') === true ? true : !failed;

/** GitHub's multi-line and single-line $GITHUB_OUTPUT forms. */
function readOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const multi = /^([^=<]+)<<(.+)$/.exec(line);
    if (multi !== null) {
      const end = lines.indexOf(multi[2] ?? '', i + 1);
      out[multi[1] ?? ''] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) out[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return out;
}

async function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; log: string }> {
  const r = await runProcess('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { env, cwd });
  return { code: r.code ?? 1, log: r.log };
}

let dir: string;
let actionPath: string;
let bin: string;
let repo: string;
const rig = useRig();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-ci-matrix-'));
  // The Action from a copy of the checkout, as `uses:` fetches one, its dependencies linked in.
  actionPath = join(dir, 'action');
  await checkoutAction(ROOT, actionPath);
  // `npm install --global nsed`, as far as the steps can tell: nsed on PATH.
  bin = join(dir, 'bin');
  await mkdir(bin);
  await writeFile(join(bin, 'nsed'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
  // `npx nsed …` in the GitLab and Kubernetes recipes: the same nsed, fetched from nowhere.
  await writeFile(
    join(bin, 'npx'),
    '#!/bin/sh\nif [ "$1" = nsed ]; then shift; exec nsed "$@"; fi\necho "the npx stand-in runs nsed only" >&2\nexit 127\n',
    { mode: 0o755 },
  );
  // The repository the jobs check out: the doc's items, made by its own first block.
  repo = join(dir, 'repo');
  await mkdir(repo);
  const made = await bash((await blocks('sh'))[0] ?? '', repo, { PATH: process.env['PATH'] ?? '' });
  expect(made.code, made.log).toBe(0);
}, 120_000);

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** The actions the workflow and the Action use, as the emulated runner provides them. */
function standIns(workspace: string, artifacts: string): Record<string, UsesStandIn> {
  return {
    'actions/checkout': async () => {
      await cp(repo, workspace, { recursive: true });
      return {};
    },
    'actions/upload-artifact': async (w) => {
      const to = join(artifacts, w['name'] ?? 'artifact');
      await mkdir(to, { recursive: true });
      const path = join(workspace, w['path'] ?? '');
      // A leg that wrote nothing uploads nothing (GitHub warns, and the merge then names the shard).
      if (
        await stat(path).then(
          () => true,
          () => false,
        )
      )
        await cp(path, join(to, basename(path)));
      return {};
    },
    'actions/download-artifact': async (w) => {
      const to = join(workspace, w['path'] ?? '.');
      await mkdir(to, { recursive: true });
      const pattern = new RegExp(`^${(w['pattern'] ?? w['name'] ?? '').replace(/[.]/g, '\\.').replace(/\*/g, '.*')}$`);
      // One artifact by name, or with merge-multiple every match, lands in the path itself;
      // otherwise each match in a folder of its name.
      const flat = w['name'] !== undefined || w['merge-multiple'] === 'true';
      for (const name of await readdir(artifacts)) {
        if (!pattern.test(name)) continue;
        for (const f of await readdir(join(artifacts, name)))
          await cp(join(artifacts, name, f), flat ? join(to, f) : join(to, name, f), { recursive: true });
      }
      return {};
    },
    // The Action's own setup: the test's node, and a warm dependency cache.
    'actions/setup-node': async () => ({ 'node-version': process.version }),
    'actions/cache': async () => ({ 'cache-hit': 'true' }),
  };
}

interface JobRun {
  failed: boolean;
  outputs: Record<string, string>;
  logs: string[];
  workspace: string;
}

/** Runs one job (one leg of a matrix) to its end, as the runner runs it. */
async function runJob(
  name: string,
  job: Job,
  wf: Workflow,
  c: Contexts,
  legIndex: number,
  artifacts: string,
): Promise<JobRun> {
  const workspace = join(dir, 'runs', `${name}-${legIndex}`);
  const temp = join(workspace, '..', `${name}-${legIndex}.temp`);
  await mkdir(workspace, { recursive: true });
  await mkdir(temp, { recursive: true });
  const uses = standIns(workspace, artifacts);
  const ctx: Contexts = { ...c, steps: {} };
  const logs: string[] = [];
  let failed = false;
  const baseEnv = {
    PATH: `${bin}:${process.env['PATH'] ?? ''}`,
    HOME: process.env['HOME'] ?? '',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_RUN_ID: '5150',
    GITHUB_JOB: name,
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: temp,
    RUNNER_OS: 'Linux',
    NSED_HOME: join(temp, 'home'),
    ...substituteAll(wf.env, ctx),
  };
  for (const [n, step] of job.steps.entries()) {
    if (!runs(step.if, failed)) continue;
    const id = step.id ?? `step${n}`;
    if (step.run !== undefined) {
      if (step.run.trim() === 'npm install --global nsed') continue;
      const outputFile = join(temp, `${id}.output`);
      await writeFile(outputFile, '');
      const r = await bash(substitute(step.run, ctx), workspace, {
        ...baseEnv,
        ...substituteAll(step.env, ctx),
        GITHUB_OUTPUT: outputFile,
      });
      logs.push(r.log);
      ctx.steps[id] = { outputs: readOutputs(await readFile(outputFile, 'utf8')) };
      if (r.code !== 0) failed = true;
      continue;
    }
    const action = (step.uses ?? '').split('@')[0] ?? '';
    const w = substituteAll(step.with, ctx);
    if (action === 'nsed/nsed') {
      const run = await runAction({
        actionPath,
        workspace,
        inputs: w,
        uses,
        github: { token: 'ghs_unused', action: id },
        strategy: ctx.strategy,
        env: baseEnv,
      });
      logs.push(...run.steps.map((s) => s.log));
      ctx.steps[id] = { outputs: run.outputs };
      if (run.outcome === 'failure') failed = true;
      continue;
    }
    const standIn = uses[action];
    if (standIn === undefined) throw new Error(`the emulation has no stand-in for ${action}`);
    ctx.steps[id] = { outputs: await standIn(w) };
  }
  const outputs = substituteAll(job.outputs, ctx);
  return { failed, outputs, logs, workspace };
}

/** The whole workflow: each job once its `needs` ended; a matrix job once per leg. */
async function runWorkflow(wf: Workflow): Promise<Record<string, JobRun[]>> {
  const artifacts = join(dir, 'artifacts');
  await mkdir(artifacts, { recursive: true });
  const base: Contexts = {
    vars: { NSED_URL: rig.sim.url },
    secrets: { NSED_TOKEN },
    matrix: {},
    needs: {},
    steps: {},
    strategy: {},
  };
  const done: Record<string, JobRun[]> = {};
  for (const [name, job] of Object.entries(wf.jobs)) {
    const needs = job.needs === undefined ? [] : Array.isArray(job.needs) ? job.needs : [job.needs];
    for (const n of needs) if (done[n] === undefined) throw new Error(`job ${name} needs ${n}, which has not run`);
    const needsFailed = needs.some((n) => done[n]?.some((r) => r.failed));
    const c: Contexts = {
      ...base,
      needs: Object.fromEntries(
        needs.map((n) => [
          n,
          { outputs: done[n]?.[0]?.outputs ?? {}, result: done[n]?.some((r) => r.failed) ? 'failure' : 'success' },
        ]),
      ),
    };
    if (!runs(job.if, needsFailed)) {
      done[name] = [];
      continue;
    }
    const matrix = job.strategy?.matrix;
    const legs =
      matrix === undefined
        ? [{}]
        : (
            (typeof matrix === 'string' ? evaluate(matrix.replace(/^\$\{\{|\}\}$/g, ''), c) : matrix) as {
              include: Array<Record<string, string>>;
            }
          ).include;
    const results: JobRun[] = [];
    for (const [i, leg] of legs.entries())
      results.push(
        await runJob(
          name,
          job,
          wf,
          { ...c, matrix: leg, strategy: { 'job-index': String(i), 'job-total': String(legs.length) } },
          i,
          artifacts,
        ),
      );
    done[name] = results;
  }
  return done;
}

describe("docs/ci-matrix.md's GitHub workflow, through a runner emulation", () => {
  it('plans a matrix, runs each leg with the Action, and the merge job gives one verdict and one JUnit file', async () => {
    const yaml = (await blocks('yaml')).find((b) => /strategy:/.test(b) && /merge:/.test(b));
    if (yaml === undefined) throw new Error('docs/ci-matrix.md has no GitHub workflow with a matrix and a merge job');
    const wf = parse(yaml) as Workflow;
    const done = await runWorkflow(wf);
    const plan = done['plan']?.[0];
    expect(plan?.failed, plan?.logs.join('\n')).toBe(false);
    expect(JSON.parse(plan?.outputs['matrix'] ?? '')).toEqual({
      include: [{ shard: '1/3' }, { shard: '2/3' }, { shard: '3/3' }],
    });
    const legs = done['shard'] ?? [];
    expect(legs).toHaveLength(3);
    for (const leg of legs) expect(leg.failed, leg.logs.join('\n')).toBe(false);
    const merge = done['merge']?.[0];
    expect(merge?.failed, merge?.logs.join('\n')).toBe(false);
    expect(merge?.logs.join('\n')).toContain('merged 3 of 3 shards (3 files): 6 items: 6 ok');
    const xml = await readFile(join(merge?.workspace ?? '', 'nsed.xml'), 'utf8');
    expect(await junitSchemaErrors(xml)).toEqual([]);
    const doc = (await parseJunit(xml)) as TestSuites;
    expect(doc).toMatchObject({ tests: 6, failures: 0, errors: 0 });
    expect((doc.testsuite?.[0]?.testcase ?? []).map((t) => t.name).sort()).toEqual([
      'auth',
      'cache',
      'db',
      'logs',
      'queue',
      'search',
    ]);
    // The token reached nsed as NSED_TOKEN and nothing else: no file the jobs left holds it.
    for (const run of [plan, ...legs, merge])
      for (const f of await readdir(run?.workspace ?? '', { recursive: true }))
        if (!(await stat(join(run?.workspace ?? '', String(f)))).isDirectory())
          expect(await readFile(join(run?.workspace ?? '', String(f)), 'utf8')).not.toContain(NSED_TOKEN);
  }, 300_000);
});

/** The environment a CI job's shell gets here: nsed (and its npx stand-in) on PATH, the simulator, a store. */
const shellEnv = (home: string): Record<string, string> => ({
  PATH: `${bin}:${process.env['PATH'] ?? ''}`,
  HOME: process.env['HOME'] ?? '',
  NSED_URL: rig.sim.url,
  NSED_HOME: home,
});

describe("docs/ci-matrix.md's GitLab pipeline, through a runner emulation", () => {
  it('runs `parallel: N` as N jobs (CI_NODE_INDEX from 1), then the verdict job merges their artifacts', async () => {
    const yaml = (await blocks('yaml')).find((b) => /parallel:/.test(b));
    if (yaml === undefined) throw new Error('docs/ci-matrix.md has no GitLab pipeline with parallel:');
    const pipeline = parse(yaml) as Record<
      string,
      { parallel?: number; script: string[]; artifacts?: { paths?: string[] } }
    >;
    const [shardJob, verdictJob] = [pipeline['evals'], pipeline['evals-verdict']];
    if (shardJob?.parallel === undefined || verdictJob === undefined)
      throw new Error('the pipeline has no evals and evals-verdict jobs');
    const artifacts = join(dir, 'gitlab-artifacts');
    await mkdir(artifacts, { recursive: true });
    for (let i = 1; i <= shardJob.parallel; i++) {
      const ws = join(dir, 'gitlab', `evals-${i}`);
      await cp(repo, ws, { recursive: true });
      const env = {
        ...shellEnv(join(ws, '.home')),
        CI: 'true',
        CI_NODE_INDEX: String(i),
        CI_NODE_TOTAL: String(shardJob.parallel),
      };
      const r = await bash(shardJob.script.join('\n'), ws, env);
      expect(r.code, r.log).toBe(0);
      // artifacts: paths: results-*.jsonl, handed to the later stage.
      for (const f of await readdir(ws)) if (/^results-.*\.jsonl$/.test(f)) await cp(join(ws, f), join(artifacts, f));
    }
    const ws = join(dir, 'gitlab', 'verdict');
    await cp(repo, ws, { recursive: true });
    await cp(artifacts, ws, { recursive: true });
    const r = await bash(verdictJob.script.join('\n'), ws, { ...shellEnv(join(ws, '.home')), CI: 'true' });
    expect(r.code, r.log).toBe(0);
    expect(r.log).toContain('6 items: 6 ok');
    const doc = (await parseJunit(await readFile(join(ws, 'nsed.xml'), 'utf8'))) as TestSuites;
    expect(doc).toMatchObject({ tests: 6, failures: 0, errors: 0 });
  }, 300_000);
});

describe("docs/ci-matrix.md's Kubernetes Indexed Job, through an emulation of its pods", () => {
  it('runs a pod per index (JOB_COMPLETION_INDEX from 0); a replaced pod keeps its index and sends nothing again', async () => {
    const yaml = (await blocks('yaml')).find((b) => /completionMode: Indexed/.test(b));
    if (yaml === undefined) throw new Error('docs/ci-matrix.md has no Indexed Job');
    const job = parse(yaml) as {
      spec: { completions: number; template: { spec: { containers: Array<{ command: string[]; args: string[] }> } } };
    };
    const container = job.spec.template.spec.containers[0];
    if (container === undefined) throw new Error('the Job has no container');
    // The volumes the pods mount, as folders of this machine.
    const work = join(dir, 'k8s-work');
    const results = join(dir, 'k8s-results');
    await cp(repo, work, { recursive: true });
    await mkdir(results, { recursive: true });
    const script = (container.args[0] ?? '').replaceAll('/work/', `${work}/`).replaceAll('/results/', `${results}/`);
    expect(container.command).toEqual(['sh', '-c']);
    const pod = async (index: number): Promise<void> => {
      const env = { ...shellEnv(join(dir, 'k8s-home')), JOB_COMPLETION_INDEX: String(index) };
      const { code, log } = await runProcess('sh', ['-c', script], { cwd: work, env });
      expect(code, log).toBe(0);
    };
    for (let i = 0; i < job.spec.completions; i++) await pod(i);
    // Index 1 has items of its own, so that sending nothing again says something.
    expect((await readFile(join(results, 'shard-1.jsonl'), 'utf8')).trim()).not.toBe('');
    const sent = deliberations(rig);
    // The pod of index 1 replaced after it ran (its node lost): it comes back with its index.
    await pod(1);
    expect(deliberations(rig)).toBe(sent);
    const files = (await readdir(results)).map((f) => join(results, f));
    expect(files).toHaveLength(job.spec.completions);
    const merged = await bash(
      `nsed batch merge ${files.join(' ')} --items ${work}/evals.jsonl`,
      work,
      shellEnv(join(dir, 'k8s-home')),
    );
    expect(merged.code, merged.log).toBe(0);
    expect(merged.log).toContain('6 items: 6 ok');
  }, 300_000);
});
