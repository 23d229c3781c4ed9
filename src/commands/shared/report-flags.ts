import { usageError } from '../../errors.js';
import type { ReportOptions } from '../../turn/reports/report-options.js';
import { pointerTokens, REVIEW_FINDINGS_POINTER } from '../../output/findings.js';
import { REVIEW_SCHEMA_NAME } from '../../input/review-schema.js';
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
    name: 'session-id-file',
    type: 'string',
    valueName: 'FILE',
    complete: 'file',
    sample: 'session-id.txt',
    describe: "write the turn's session id and a newline to FILE once the turn ends, for a script (not with --no-save)",
  },
  {
    name: 'annotate',
    type: 'boolean',
    describe:
      'GitHub workflow commands on stderr: one per finding on its line (--findings), ::error:: per wrong claim, ::warning:: per contested one, a ::notice::',
  },
  {
    name: 'findings',
    type: 'string',
    valueName: 'POINTER',
    sample: '/findings',
    describe:
      'the JSON Pointer of the findings array in the --schema answer (items: file, line, end_line, severity, message, title, suggestion); --schema review implies /findings',
  },
  {
    name: 'sarif',
    type: 'string',
    valueName: 'FILE',
    complete: 'file',
    sample: 'nsed.sarif',
    describe: 'write the findings as SARIF 2.1.0 to FILE, for code scanning (needs --findings or --schema review)',
  },
  {
    name: 'codequality',
    type: 'string',
    valueName: 'FILE',
    complete: 'file',
    sample: 'gl-code-quality.json',
    describe: "write the findings as GitLab's Code Quality report to FILE (needs --findings or --schema review)",
  },
  {
    name: 'rdjson',
    type: 'string',
    valueName: 'FILE',
    complete: 'file',
    sample: 'nsed.rdjsonl',
    describe:
      "write the findings as reviewdog's rdjsonl to FILE, suggestions included, for reviewdog -f=rdjsonl (needs --findings or --schema review)",
  },
  {
    name: 'workspace',
    type: 'string',
    valueName: 'DIR',
    complete: 'dir',
    sample: '.',
    describe: 'the checkout the findings point into (default: the current folder); a finding outside it is dropped',
  },
];

/**
 * `--summary FILE`, `--junit FILE`, `--html FILE`, `--junit-name`, `--github-output FILE`, `--session-id-file FILE`,
 * `--annotate` (undefined when none is given);
 * a report file needs a name, and one file cannot hold two reports.
 */
const EXAMPLE_FILE: Record<string, string> = {
  summary: 'summary.md',
  junit: 'nsed.xml',
  html: 'report.html',
  'github-output': '"$GITHUB_OUTPUT"',
  'session-id-file': 'session-id.txt',
  sarif: 'nsed.sarif',
  codequality: 'gl-code-quality.json',
  rdjson: 'nsed.rdjsonl',
  workspace: '.',
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
  const sessionIdFile = file('session-id-file');
  const junitName = argv['junit-name'];
  if (junitName !== undefined && (typeof junitName !== 'string' || junitName.trim() === ''))
    throw usageError('--junit-name needs a name', 'e.g. --junit-name council-review');
  const sarif = file('sarif');
  const codequality = file('codequality');
  const rdjson = file('rdjson');
  const workspace = file('workspace');
  const findings = findingsPointer(argv);
  if (
    summary === undefined &&
    junit === undefined &&
    html === undefined &&
    githubOutput === undefined &&
    sessionIdFile === undefined &&
    junitName === undefined &&
    sarif === undefined &&
    codequality === undefined &&
    rdjson === undefined &&
    argv['annotate'] !== true
  )
    return undefined;
  const findingsReport = [
    ['--sarif', sarif],
    ['--codequality', codequality],
    ['--rdjson', rdjson],
  ].find(([, f]) => f !== undefined)?.[0];
  if (findings === undefined && findingsReport !== undefined)
    throw usageError(
      `${findingsReport} writes findings: name them with --findings POINTER`,
      'e.g. --findings /findings, or ask with --schema review, which has them there',
    );
  const named = [
    ['--summary', summary],
    ['--junit', junit],
    ['--html', html],
    ['--github-output', githubOutput],
    ['--session-id-file', sessionIdFile],
    ['--sarif', sarif],
    ['--codequality', codequality],
    ['--rdjson', rdjson],
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
    ...(sessionIdFile === undefined ? {} : { sessionIdFile }),
    ...(junitName === undefined ? {} : { junitName: junitName.trim() }),
    ...(sarif === undefined ? {} : { sarif }),
    ...(codequality === undefined ? {} : { codequality }),
    ...(rdjson === undefined ? {} : { rdjson }),
    ...(findings === undefined ? {} : { findings }),
    ...(workspace === undefined ? {} : { workspace }),
    annotate: argv['annotate'] === true,
  };
}

/** --findings, checked as a JSON Pointer; `--schema review` implies `/findings`. */
function findingsPointer(argv: ParsedArgv): string | undefined {
  const v = argv['findings'];
  if (v === undefined) return argv['schema'] === REVIEW_SCHEMA_NAME ? REVIEW_FINDINGS_POINTER : undefined;
  if (typeof v !== 'string' || pointerTokens(v) === undefined)
    throw usageError(
      `--findings ${typeof v === 'string' ? v.slice(0, 80) : ''} is not a JSON Pointer`,
      "e.g. --findings /findings: '/' then the property names, '~1' for a '/' in one",
    );
  return v;
}
