// The nsed GitHub Action's main step (action.yml): the inputs (INPUT_* variables) become one
// `nsed ask` or `nsed batch` command line, run from the action's own checkout. nsed itself
// appends the step outputs to $GITHUB_OUTPUT (it runs under GitHub Actions), prints the
// annotations on stderr and writes the JUnit file; this script adds the summary to the step's
// summary, the outputs only it knows, and exits with nsed's exit code. It prints no input's
// value: the token reaches nsed as NSED_TOKEN and nothing else.
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { input, lines, setOutput, truthy } from './step.mjs';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const env = process.env;

// Merge mode (action/merge.mjs): the job after a matrix joins the shards' results into one verdict.
if (input('merge') !== '') process.exit(await (await import('./merge.mjs')).runMerge());

/** A usage problem with the inputs: one line, as nsed says its own, and exit 2. */
function refuse(message) {
  process.stderr.write(`::error title=nsed action::${message}\n`);
  process.exit(2);
}

/** Appends `name` = `value` to $GITHUB_OUTPUT in the multi-line form (a fresh delimiter each). */

/**
 * The default idempotency key (docs/ci.md "Re-runs that never pay twice"): the run, the job, the
 * matrix leg and the step, never the attempt, so a re-run of the job finds its deliberation.
 * Characters a key may not hold become `_`.
 */
function defaultKey() {
  const parts = [env['GITHUB_RUN_ID'] || 'local', env['GITHUB_JOB'] || 'job'];
  if ((env['NSED_ACTION_JOB_INDEX'] ?? '') !== '') parts.push(env['NSED_ACTION_JOB_INDEX']);
  parts.push(env['NSED_ACTION_STEP'] || 'nsed');
  return parts
    .join('-')
    .replace(/[^A-Za-z0-9._\-:/@+=#]/g, '_')
    .slice(0, 200);
}

const temp = path.join(env['RUNNER_TEMP'] || path.join(root, '.nsed-action'), 'nsed');
mkdirSync(temp, { recursive: true, mode: 0o700 });
const key = input('idempotency-key') || defaultKey();
const stepDir = path.join(temp, key.replace(/[^A-Za-z0-9._-]/g, '_'));
mkdirSync(stepDir, { recursive: true, mode: 0o700 });
const summaryFile = path.join(stepDir, 'summary.md');
const batch = input('batch');

if (batch === '' && input('prompt') === '' && input('prompt-file') === '' && input('template') === '')
  refuse('give the action a prompt, a prompt-file, a template or a batch');

/**
 * The inputs whose values are numbers, by the form nsed reads: checked here before anything runs,
 * so that a value such as `--url=http://elsewhere` is refused rather than handed on.
 */
const NUMBER_INPUTS = {
  rounds: 'whole',
  'max-tokens': 'whole',
  jobs: 'whole',
  'max-cost': 'decimal',
  timeout: 'decimal',
  'min-convergence': 'share',
  'max-wrong': 'share',
  'max-contested': 'share',
  'min-score': 'share',
  'min-margin': 'share',
  'min-agreement': 'share',
  'min-endorse': 'share',
  'max-synthetic': 'share',
  'max-cost-gate': 'share',
  'min-pass-rate': 'share',
};
const NUMBER_FORMS = {
  whole: { pattern: /^[0-9]+$/, words: 'a whole number, e.g. 3' },
  decimal: { pattern: /^[0-9]+(\.[0-9]+)?$/, words: 'a number, e.g. 0.5' },
  share: { pattern: /^-?[0-9]+(\.[0-9]+)?%?$/, words: 'a number or a percentage, e.g. 0.8 or 80%' },
};
for (const [name, form] of Object.entries(NUMBER_INPUTS)) {
  const value = input(name);
  // The value is not repeated: it may be anything, a secret pasted in the wrong input included.
  if (value !== '' && !NUMBER_FORMS[form].pattern.test(value))
    refuse(`the ${name} input must be ${NUMBER_FORMS[form].words}`);
}

// A batch file named `-…` is given as `./-…`, the same file, so that it cannot read as a flag.
const args = batch === '' ? ['ask', '-o', 'final'] : ['batch', batch.startsWith('-') ? `./${batch}` : batch];
// Each input is one word `--NAME=VALUE`: nsed reads it as that flag's value whatever it holds, even
// one that starts with '-' and would otherwise be read as a flag of its own (`--url=…`).
const flag = (name, value) => {
  if (value !== '') args.push(`--${name}=${value}`);
};
flag('policy', input('policy'));
flag('agents', input('agents'));
flag('rounds', input('rounds'));
flag('model', input('model'));
flag('max-cost', input('max-cost'));
flag('max-tokens', input('max-tokens'));
if (truthy('allow-unmetered')) args.push('--allow-unmetered');
for (const f of lines('files')) flag('file', f);
flag('schema', input('schema'));
flag('template', input('template'));
for (const v of lines('vars')) flag('var', v);
for (const g of [
  'min-convergence',
  'max-wrong',
  'max-contested',
  'min-score',
  'min-margin',
  'min-agreement',
  'min-endorse',
  'max-synthetic',
  'max-cost-gate',
  'gates',
])
  flag(g, input(g));
// Findings on the changed lines (docs/ci.md "Findings on the changed lines"): --schema review implies /findings.
for (const f of ['findings', 'workspace', 'sarif', 'codequality']) flag(f, input(f));
// The review (action/review.mjs) reads the findings as rdjsonl: the `rdjson` input's file, else
// one of the step's own, written whenever there are findings.
const hasFindings = batch === '' && (input('findings') !== '' || input('schema') === 'review');
const rdjsonFile =
  input('rdjson') !== ''
    ? path.resolve(input('rdjson'))
    : hasFindings && truthy('pr-review')
      ? path.join(stepDir, 'findings.rdjsonl')
      : '';
flag('rdjson', rdjsonFile);
flag('idempotency-key', key);
flag('on-exit', input('on-exit'));
flag('timeout', input('timeout'));
flag('summary', summaryFile);
flag('junit', input('junit'));
flag('junit-name', input('junit-name'));
// The check run is nsed's own --check-run (docs/ci-review.md), written with the github-token input.
flag('check-run', input('check-run'));
let resultsFile;
if (batch !== '') {
  resultsFile = path.resolve(input('batch-out') || path.join(stepDir, 'results.jsonl'));
  flag('out', resultsFile);
  // A re-run of the job goes on with the batch: the items that ended are not sent again.
  if (existsSync(resultsFile)) args.push('--resume');
  flag('jobs', input('jobs'));
  // One leg of a matrix (docs/ci-matrix.md): its shard, by the plan `nsed batch plan` wrote.
  flag('shard', input('shard'));
  flag('shard-plan', input('shard-plan'));
  flag('min-pass-rate', input('min-pass-rate'));
} else if (truthy('annotate')) args.push('--annotate');
// Flags without an input of their own (or added to nsed later, such as findings, SARIF and Code
// Quality reports: each gets an input in action.yml and a flag() line above) pass through `args`.
args.push(...lines('args'));
if (batch === '' && input('prompt') !== '') args.push('--', input('prompt'));

const childEnv = { ...env };
for (const k of Object.keys(childEnv)) if (k.startsWith('INPUT_')) delete childEnv[k];
// GitHub's token reaches nsed only when it writes a check run with it.
delete childEnv['NSED_GITHUB_TOKEN'];
if (input('check-run') !== '' && (env['NSED_GITHUB_TOKEN'] ?? '') !== '')
  childEnv['GITHUB_TOKEN'] = env['NSED_GITHUB_TOKEN'];
if (input('url') !== '') childEnv['NSED_URL'] = input('url');
if (input('token') !== '') childEnv['NSED_TOKEN'] = input('token');
childEnv['NSED_HOME'] ||= path.join(temp, 'home');

// The answer goes to a file (nsed names it in the `answer-file` output); the prompt file, if any, is stdin.
const answerFile = path.join(stepDir, 'answer.md');
const stdout = openSync(batch === '' ? answerFile : path.join(stepDir, 'batch.out'), 'w', 0o600);
const stdin = input('prompt-file') === '' ? 'ignore' : openSync(input('prompt-file'), 'r');
const child = spawn(process.execPath, [path.join(root, 'bin', 'nsed.cjs'), ...args], {
  env: childEnv,
  stdio: [stdin, stdout, 'inherit'],
});
// A cancelled job signals the step: nsed gets the signal too, and --on-exit decides what it does.
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
const code = await new Promise((resolve) =>
  child.on('close', (c, signal) => resolve(c ?? (signal === 'SIGTERM' ? 143 : signal === 'SIGINT' ? 130 : 1))),
);
closeSync(stdout);
if (typeof stdin === 'number') closeSync(stdin);

if (existsSync(summaryFile)) {
  if (truthy('summary') && (env['GITHUB_STEP_SUMMARY'] ?? '') !== '')
    appendFileSync(env['GITHUB_STEP_SUMMARY'], readFileSync(summaryFile));
  setOutput('summary-file', summaryFile);
}
if (input('junit') !== '' && existsSync(input('junit'))) setOutput('junit-file', path.resolve(input('junit')));
if (batch === '' && existsSync(answerFile)) setOutput('answer-file', answerFile);
if (rdjsonFile !== '' && existsSync(rdjsonFile)) setOutput('rdjson-file', rdjsonFile);
setOutput('idempotency-key', key);
// nsed wrote its exit code already when the run got that far; this one holds for every end.
setOutput('exit-code', String(code));
process.exit(code);
