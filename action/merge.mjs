// The nsed GitHub Action's merge mode (action.yml, input `merge`): the job after a matrix of
// `nsed batch --shard I/N` legs joins their results files into one verdict with
// `nsed batch merge` (docs/ci-matrix.md): one results file, one step summary, one JUnit file, the
// step outputs (nsed appends them to $GITHUB_OUTPUT itself) and one exit code. Each line of the
// input names a results file or a folder (a downloaded artifact): a folder gives every .jsonl
// file under it. It prints no input's value: the token reaches nsed as NSED_TOKEN and nothing else.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { input, lines, setOutput, truthy } from './step.mjs';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const env = process.env;

/** The results files a line names: itself, or every .jsonl file under a folder, in name order. */
function resultsFiles(entry) {
  if (!existsSync(entry) || !statSync(entry).isDirectory()) return [entry];
  return readdirSync(entry, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => path.join(entry, f));
}

/** Runs `nsed batch merge` on the inputs; resolves to its exit code (the step's). */
export async function runMerge() {
  const temp = path.join(env['RUNNER_TEMP'] || path.join(root, '.nsed-action'), 'nsed', 'merge');
  mkdirSync(temp, { recursive: true, mode: 0o700 });
  const summaryFile = path.join(temp, 'summary.md');
  const resultsFile = path.resolve(input('batch-out') || path.join(temp, 'results.jsonl'));
  const files = lines('merge').flatMap(resultsFiles);
  // A name that starts with '-' is given as `./-…`, the same file, so that it cannot read as a flag.
  const args = ['batch', 'merge', ...files.map((f) => (f.startsWith('-') ? `./${f}` : f))];
  const flag = (name, value) => {
    if (value !== '') args.push(`--${name}=${value}`);
  };
  flag('out', resultsFile);
  flag('items', input('batch'));
  flag('shard-plan', input('shard-plan'));
  flag('min-pass-rate', input('min-pass-rate'));
  flag('summary', summaryFile);
  flag('junit', input('junit'));
  flag('junit-name', input('junit-name'));
  const childEnv = { ...env };
  for (const k of Object.keys(childEnv)) if (k.startsWith('INPUT_')) delete childEnv[k];
  childEnv['NSED_HOME'] ||= path.join(temp, 'home');
  const child = spawn(process.execPath, [path.join(root, 'bin', 'nsed.cjs'), ...args], {
    env: childEnv,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const code = await new Promise((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  if (existsSync(summaryFile)) {
    if (truthy('summary') && (env['GITHUB_STEP_SUMMARY'] ?? '') !== '')
      appendFileSync(env['GITHUB_STEP_SUMMARY'], readFileSync(summaryFile));
    setOutput('summary-file', summaryFile);
  }
  if (input('junit') !== '' && existsSync(input('junit'))) setOutput('junit-file', path.resolve(input('junit')));
  setOutput('exit-code', String(code));
  return code;
}
