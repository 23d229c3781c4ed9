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
    name: 'annotate',
    type: 'boolean',
    describe:
      'GitHub workflow commands on stderr: ::error:: per wrong claim, ::warning:: per contested one, a ::notice::',
  },
];

/**
 * `--summary FILE`, `--junit FILE`, `--annotate` (undefined when none is given); a report file
 * needs a name, and one file cannot hold both.
 */
export function parseReportOptions(argv: ParsedArgv): ReportOptions | undefined {
  const file = (name: string): string | undefined => {
    const v = argv[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v.trim() === '')
      throw usageError(`--${name} needs a file name`, `e.g. --${name} ${name === 'junit' ? 'nsed.xml' : 'summary.md'}`);
    return v;
  };
  const summary = file('summary');
  const junit = file('junit');
  if (summary === undefined && junit === undefined && argv['annotate'] !== true) return undefined;
  if (summary !== undefined && summary === junit)
    throw usageError('--summary and --junit name the same file', 'give each report its own file');
  return {
    ...(summary === undefined ? {} : { summary }),
    ...(junit === undefined ? {} : { junit }),
    annotate: argv['annotate'] === true,
  };
}
