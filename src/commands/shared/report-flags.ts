import { usageError } from '../../errors.js';
import type { ReportOptions } from '../../turn/report-options.js';
import type { ParsedArgv } from '../command.js';
import type { FlagDef } from './flag-def.js';

/** The CI reports of a run (README "CI"), on every command that runs a turn: ask, continue, fork, resume. */
export const REPORT_FLAGS: readonly FlagDef[] = [
  {
    name: 'summary',
    type: 'string',
    valueName: 'FILE',
    complete: 'file',
    sample: 'summary.md',
    describe:
      'write the turn as GitHub step-summary markdown to FILE, e.g. "$GITHUB_STEP_SUMMARY" (works with --no-save)',
  },
  {
    name: 'junit',
    type: 'string',
    valueName: 'FILE',
    complete: 'file',
    sample: 'nsed.xml',
    describe: 'write the turn as a JUnit XML report to FILE: one test case per gate check (works with --no-save)',
  },
  {
    name: 'html',
    // dist/ask.cjs is built without markdown-it (scripts/build.mjs): an ask with --html runs from dist/main.js.
    fast: false,
    type: 'string',
    valueName: 'FILE',
    complete: 'file',
    sample: 'report.html',
    describe:
      'write the session as one self-contained HTML page to FILE: verdict, charts, every round (works with --no-save)',
  },
  {
    name: 'junit-name',
    type: 'string',
    valueName: 'NAME',
    sample: 'council-review',
    describe:
      "the JUnit test suite's name, the same on every run so trackers follow its tests (default: the session title)",
  },
  {
    name: 'github-output',
    type: 'string',
    valueName: 'FILE',
    complete: 'file',
    sample: 'outputs.txt',
    describe:
      'append step outputs (session-id, status, exit-code, convergence, gate, …) to FILE (default under GitHub Actions: $GITHUB_OUTPUT)',
  },
  {
    name: 'annotate',
    type: 'boolean',
    describe:
      'GitHub workflow commands on stderr: ::error:: per wrong claim, ::warning:: per contested one, a ::notice::',
  },
];

/**
 * `--summary FILE`, `--junit FILE`, `--html FILE`, `--junit-name`, `--github-output FILE`, `--annotate` (undefined when none is given);
 * a report file needs a name, and one file cannot hold two reports.
 */
const EXAMPLE_FILE: Record<string, string> = {
  summary: 'summary.md',
  junit: 'nsed.xml',
  html: 'report.html',
  'github-output': '"$GITHUB_OUTPUT"',
};

export function parseReportOptions(argv: ParsedArgv): ReportOptions | undefined {
  const file = (name: string): string | undefined => {
    const v = argv[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v.trim() === '')
      throw usageError(`--${name} needs a file name`, `e.g. --${name} ${EXAMPLE_FILE[name] ?? 'report'}`);
    return v;
  };
  const summary = file('summary');
  const junit = file('junit');
  const html = file('html');
  const githubOutput = file('github-output');
  const junitName = argv['junit-name'];
  if (junitName !== undefined && (typeof junitName !== 'string' || junitName.trim() === ''))
    throw usageError('--junit-name needs a name', 'e.g. --junit-name council-review');
  if (
    summary === undefined &&
    junit === undefined &&
    html === undefined &&
    githubOutput === undefined &&
    junitName === undefined &&
    argv['annotate'] !== true
  )
    return undefined;
  const named = [
    ['--summary', summary],
    ['--junit', junit],
    ['--html', html],
    ['--github-output', githubOutput],
  ] as const;
  for (const [i, [a, fa]] of named.entries())
    for (const [b, fb] of named.slice(i + 1))
      if (fa !== undefined && fa === fb)
        throw usageError(`${a} and ${b} name the same file`, 'give each report its own file');
  return {
    ...(summary === undefined ? {} : { summary }),
    ...(junit === undefined ? {} : { junit }),
    ...(html === undefined ? {} : { html }),
    ...(githubOutput === undefined ? {} : { githubOutput }),
    ...(junitName === undefined ? {} : { junitName: junitName.trim() }),
    annotate: argv['annotate'] === true,
  };
}
