import { usageError } from '../../errors.js';
import type { ReportOptions } from '../../turn/reports/report-options.js';
import { pointerTokens, REVIEW_FINDINGS_POINTER } from '../../output/findings.js';
import { REVIEW_SCHEMA_NAME } from '../../input/review-schema.js';
import type { ParsedArgv } from '../command.js';
import { flagValues, type FlagDef } from './flag-def.js';
import { SCHEMA_FLAGS } from './input-flags.js';

/** The CI reports of a run (README "CI"), on every command that runs a turn: ask, continue, fork, resume. */
const REPORT = [
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
    name: 'check-run',
    type: 'string',
    valueName: 'NAME',
    sample: 'nsed council',
    describe:
      'write one GitHub check run NAME on the head commit: the verdict as its conclusion, the summary, each finding an annotation; a re-run updates it (GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_SHA from the environment; docs/ci-review.md)',
  },
  {
    name: 'workspace',
    type: 'string',
    valueName: 'DIR',
    complete: 'dir',
    sample: '.',
    describe: 'the checkout the findings point into (default: the current folder); a finding outside it is dropped',
  },
] as const satisfies readonly FlagDef[];

/** The CI reports' flags, as the commands spread them. */
export const REPORT_FLAGS: readonly FlagDef[] = REPORT;

/**
 * `--summary FILE`, `--junit FILE`, `--html FILE`, `--junit-name`, `--github-output FILE`, `--session-id-file FILE`,
 * `--annotate`, the findings' reports and `--check-run NAME` (undefined when none is given);
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
  const f = flagValues(REPORT, argv);
  const file = (
    name:
      | 'summary'
      | 'junit'
      | 'html'
      | 'github-output'
      | 'session-id-file'
      | 'sarif'
      | 'codequality'
      | 'rdjson'
      | 'workspace',
  ): string | undefined => {
    const v = f[name];
    if (v === undefined) return undefined;
    if (v.trim() === '')
      throw usageError(`--${name} needs a file name`, `e.g. --${name} ${EXAMPLE_FILE[name] ?? 'report'}`);
    return v;
  };
  const summary = file('summary');
  const junit = file('junit');
  const html = file('html');
  const githubOutput = file('github-output');
  const sessionIdFile = file('session-id-file');
  const junitName = f['junit-name'];
  if (junitName !== undefined && junitName.trim() === '')
    throw usageError('--junit-name needs a name', 'e.g. --junit-name council-review');
  const sarif = file('sarif');
  const codequality = file('codequality');
  const rdjson = file('rdjson');
  const workspace = file('workspace');
  const checkRun = f['check-run']?.trim();
  if (checkRun === '') throw usageError('--check-run needs a name', 'e.g. --check-run "nsed council"');
  const findings = findingsPointer(f.findings, argv);
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
    checkRun === undefined &&
    f.annotate !== true
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
    ...(checkRun === undefined ? {} : { checkRun }),
    ...(findings === undefined ? {} : { findings }),
    ...(workspace === undefined ? {} : { workspace }),
    annotate: f.annotate === true,
  };
}

/** --findings, checked as a JSON Pointer; `--schema review` implies `/findings`. */
function findingsPointer(v: string | undefined, argv: ParsedArgv): string | undefined {
  if (v === undefined) {
    const { schema } = flagValues(SCHEMA_FLAGS, argv) as { schema?: unknown };
    return schema === REVIEW_SCHEMA_NAME ? REVIEW_FINDINGS_POINTER : undefined;
  }
  if (pointerTokens(v) === undefined)
    throw usageError(
      `--findings ${v.slice(0, 80)} is not a JSON Pointer`,
      "e.g. --findings /findings: '/' then the property names, '~1' for a '/' in one",
    );
  return v;
}
