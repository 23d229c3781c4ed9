// A small, faithful runner for a composite action (action.yml), as GitHub's runner executes one
// (docs.github.com: "Metadata syntax for GitHub Actions", "Contexts", "Expressions", "Workflow
// commands"): the inputs with their defaults, `${{ … }}` substituted in `env`, `with`, `run` and
// `working-directory` (`github.event.*` read from the payload, `secrets`, `vars`), each `if:`
// judged (success() by default), each `run` step a fresh
// `bash --noprofile --norc -eo pipefail` with the runner's variables (GITHUB_ACTIONS, CI,
// GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files of its own, GITHUB_ACTION_PATH, RUNNER_TEMP, …),
// its outputs read back from its GITHUB_OUTPUT file, and the action's outputs evaluated at the
// end. Steps that `uses:` another action run a stand-in the test gives (setup-node, cache).
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { parseGithubFile } from './github-files.js';
import { WAIT_MS } from './limits.js';

interface StepDef {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  'working-directory'?: string;
}

interface ActionDef {
  inputs?: Record<string, { default?: string; required?: boolean }>;
  outputs?: Record<string, { value: string }>;
  runs: { using: string; steps: StepDef[] };
}

/** The repository's files a `uses:` of this Action fetches and its Build step needs. */
const ACTION_FILES = [
  'action.yml',
  'action',
  'package.json',
  'package-lock.json',
  'bin',
  'scripts',
  'schemas',
  'src',
  'docs',
] as const;

/** A copy of the Action's checkout at `dest`, as `uses:` fetches one, with `root`'s dependencies linked in. */
export async function checkoutAction(root: string, dest: string): Promise<void> {
  for (const entry of ACTION_FILES) await cp(path.join(root, entry), path.join(dest, entry), { recursive: true });
  await symlink(path.join(root, 'node_modules'), path.join(dest, 'node_modules'), 'dir');
}

export interface StepRecord {
  id: string | undefined;
  name: string;
  /** `skipped` when its `if:` was false. */
  outcome: 'success' | 'failure' | 'skipped';
  exitCode: number | null;
  /** Stdout and stderr of a run step, as the log shows them. */
  log: string;
  outputs: Map<string, string>;
  /** The `with:` a `uses:` step was given, after substitution. */
  with?: Record<string, string>;
}

/** A stand-in for an action a step `uses:`: its outputs, or a failure. */
export type UsesStandIn = (withArgs: Record<string, string>) => Promise<Record<string, string>>;

export interface ActionRun {
  /** The action's outcome: failure when any step failed. */
  outcome: 'success' | 'failure';
  steps: StepRecord[];
  /** The action's outputs (`outputs.*.value`), evaluated after its steps. */
  outputs: Record<string, string>;
  /** Everything the steps wrote to their step summaries, in order. */
  summary: string;
}

export interface RunActionOptions {
  /** The folder holding action.yml (`github.action_path`). */
  actionPath: string;
  /** `with:` of the workflow step that uses the action. */
  inputs: Record<string, string>;
  /** The runner's environment for the job (PATH, HOME, GITHUB_*, RUNNER_*, …). */
  env: Record<string, string>;
  /** The `github` context's values the action reads (token, action, …). */
  github: Record<string, string>;
  /** The `strategy` context (job-index, …); empty outside a matrix. */
  strategy?: Record<string, string>;
  /** `github.event`: the webhook payload (`github.event.pull_request.number`, …). */
  event?: unknown;
  /** The `secrets` and `vars` contexts a workflow's steps read. */
  secrets?: Record<string, string>;
  vars?: Record<string, string>;
  /** Stand-ins for the actions the steps use, by `owner/name` (without `@ref`). */
  uses: Record<string, UsesStandIn>;
  /** The job's working directory (GITHUB_WORKSPACE). */
  workspace: string;
}

type Ctx = {
  inputs: Record<string, string>;
  github: Record<string, string>;
  event: unknown;
  secrets: Record<string, string>;
  vars: Record<string, string>;
  runner: Record<string, string>;
  strategy: Record<string, string>;
  steps: Record<string, { outputs: Record<string, string>; outcome: string }>;
  env: Record<string, string>;
  failed: boolean;
};

/** Runs the composite action at `actionPath/action.yml` as the runner would. */
export async function runAction(opts: RunActionOptions): Promise<ActionRun> {
  const def = parse(await readFile(path.join(opts.actionPath, 'action.yml'), 'utf8')) as ActionDef;
  if (def.runs.using !== 'composite') throw new Error(`not a composite action: ${def.runs.using}`);
  const ctx: Ctx = {
    inputs: {},
    github: { action_path: opts.actionPath, workspace: opts.workspace, ...opts.github },
    event: opts.event ?? {},
    secrets: opts.secrets ?? {},
    vars: opts.vars ?? {},
    runner: { temp: opts.env['RUNNER_TEMP'] ?? '', os: opts.env['RUNNER_OS'] ?? 'Linux' },
    strategy: opts.strategy ?? {},
    steps: {},
    env: opts.env,
    failed: false,
  };
  for (const name of Object.keys(opts.inputs))
    if (def.inputs?.[name] === undefined) throw new Error(`action.yml has no input ${name}`);
  for (const [name, spec] of Object.entries(def.inputs ?? {}))
    ctx.inputs[name] = opts.inputs[name] ?? substitute(String(spec.default ?? ''), ctx);
  const records: StepRecord[] = [];
  let summary = '';
  const scratch = await mkdtemp(path.join(opts.env['RUNNER_TEMP'] ?? '/tmp', '_runner_file_commands-'));
  for (const [i, step] of def.runs.steps.entries()) {
    const name = step.name ?? step.uses ?? step.run ?? `step ${i}`;
    const go = step.if === undefined ? !ctx.failed : truthy(evaluate(step.if, ctx));
    if (!go) {
      records.push({ id: step.id, name, outcome: 'skipped', exitCode: null, log: '', outputs: new Map() });
      if (step.id !== undefined) ctx.steps[step.id] = { outputs: {}, outcome: 'skipped' };
      continue;
    }
    let record: StepRecord;
    if (step.uses !== undefined) {
      const action = step.uses.replace(/@.*$/, '');
      const standIn = opts.uses[action];
      if (standIn === undefined) throw new Error(`no stand-in for ${step.uses}`);
      const withArgs = Object.fromEntries(
        Object.entries(step.with ?? {}).map(([k, v]) => [k, substitute(String(v), ctx)]),
      );
      const outputs = new Map(Object.entries(await standIn(withArgs)));
      record = { id: step.id, name, outcome: 'success', exitCode: 0, log: '', outputs, with: withArgs };
    } else {
      if (step.shell !== 'bash') throw new Error(`a composite run step needs shell: bash (${name})`);
      const files = { output: path.join(scratch, `set_output_${i}`), summary: path.join(scratch, `step_summary_${i}`) };
      await Promise.all([writeFile(files.output, ''), writeFile(files.summary, '')]);
      const script = path.join(scratch, `step_${i}.sh`);
      await writeFile(script, substitute(step.run ?? '', ctx));
      const stepEnv: Record<string, string> = {
        ...opts.env,
        ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, substitute(String(v), ctx)])),
        GITHUB_OUTPUT: files.output,
        GITHUB_STEP_SUMMARY: files.summary,
        GITHUB_ACTION_PATH: opts.actionPath,
        GITHUB_ACTION: step.id ?? `__run_${i}`,
      };
      const cwd = step['working-directory'] === undefined ? opts.workspace : substitute(step['working-directory'], ctx);
      const { code, log } = await bash(script, stepEnv, cwd);
      const outputs = parseGithubFile(await readFile(files.output, 'utf8'));
      summary += await readFile(files.summary, 'utf8');
      record = { id: step.id, name, outcome: code === 0 ? 'success' : 'failure', exitCode: code, log, outputs };
    }
    if (record.outcome === 'failure') ctx.failed = true;
    records.push(record);
    if (step.id !== undefined)
      ctx.steps[step.id] = { outputs: Object.fromEntries(record.outputs), outcome: record.outcome };
  }
  const outputs = Object.fromEntries(
    Object.entries(def.outputs ?? {}).map(([name, o]) => [name, substitute(String(o.value), ctx)]),
  );
  return { outcome: ctx.failed ? 'failure' : 'success', steps: records, outputs, summary };
}

function bash(script: string, env: Record<string, string>, cwd: string): Promise<{ code: number | null; log: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
      env,
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (log += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (log += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, log });
    });
  });
}

/** `${{ expr }}` replaced by the expression's value, as a string. */
function substitute(text: string, ctx: Ctx): string {
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expr: string) => asString(evaluate(expr, ctx)));
}

type Value = string | boolean | number | null;

const asString = (v: Value): string => (v === null ? '' : String(v));
const truthy = (v: Value): boolean => v !== null && v !== false && v !== '' && v !== 0;

/**
 * The expressions action.yml uses: context paths (`inputs.node-version`,
 * `steps.nsed.outputs.summary-file`, `github.action_path`), string literals, `==`, `!=`, `&&`,
 * `||`, `!`, parentheses, and the status functions `always()`, `success()`, `failure()`.
 * Anything else is an error, so the runner never silently misreads a step.
 */
function evaluate(source: string, ctx: Ctx): Value {
  const tokens = source.match(/'(?:[^']|'')*'|&&|\|\||==|!=|[!()]|[A-Za-z_][\w.-]*(?:\(\))?|\S/g) ?? [];
  let pos = 0;
  const peek = (): string | undefined => tokens[pos];
  const take = (): string => {
    const t = tokens[pos++];
    if (t === undefined) throw new Error(`expression ended early: ${source}`);
    return t;
  };
  const primary = (): Value => {
    const t = take();
    if (t === '(') {
      const v = or();
      if (take() !== ')') throw new Error(`missing ) in ${source}`);
      return v;
    }
    if (t === '!') return !truthy(primary());
    if (t.startsWith("'")) return t.slice(1, -1).replaceAll("''", "'");
    if (t === 'always()') return true;
    if (t === 'success()') return !ctx.failed;
    if (t === 'failure()') return ctx.failed;
    if (t === 'true' || t === 'false') return t === 'true';
    if (/^[A-Za-z_][\w.-]*$/.test(t)) return lookup(t, ctx);
    throw new Error(`unsupported expression token ${t} in ${source}`);
  };
  const compare = (): Value => {
    let left = primary();
    while (peek() === '==' || peek() === '!=') {
      const op = take();
      const right = primary();
      const eq = asString(left).toLowerCase() === asString(right).toLowerCase();
      left = op === '==' ? eq : !eq;
    }
    return left;
  };
  const and = (): Value => {
    let left = compare();
    while (peek() === '&&') {
      take();
      const right = compare();
      left = truthy(left) ? right : left;
    }
    return left;
  };
  const or = (): Value => {
    let left = and();
    while (peek() === '||') {
      take();
      const right = and();
      left = truthy(left) ? left : right;
    }
    return left;
  };
  const value = or();
  if (pos !== tokens.length) throw new Error(`unexpected ${tokens[pos]} in ${source}`);
  return value;
}

function lookup(ref: string, ctx: Ctx): Value {
  const [head, ...rest] = ref.split('.');
  if (head === 'steps') {
    const [id, kind, name] = rest;
    const step = ctx.steps[id ?? ''];
    if (kind === 'outputs') return step?.outputs[name ?? ''] ?? '';
    if (kind === 'outcome' || kind === 'conclusion') return step?.outcome ?? '';
    throw new Error(`unsupported ${ref}`);
  }
  if (head === 'github' && rest[0] === 'event') {
    // The payload's value at the path, as the runner renders it: a string, number or boolean; else empty.
    let at: unknown = ctx.event;
    for (const key of rest.slice(1))
      at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined;
    return typeof at === 'string' || typeof at === 'number' || typeof at === 'boolean' ? at : '';
  }
  const table: Record<string, Record<string, string>> = {
    inputs: ctx.inputs,
    github: ctx.github,
    runner: ctx.runner,
    strategy: ctx.strategy,
    env: ctx.env,
    secrets: ctx.secrets,
    vars: ctx.vars,
  };
  const scope = table[head ?? ''];
  if (scope === undefined || rest.length !== 1) throw new Error(`unsupported context ${ref}`);
  return scope[rest[0] ?? ''] ?? '';
}
