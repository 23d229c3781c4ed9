import type { Argv } from 'yargs';
import { usageError } from '../../errors.js';
import type { ReportOptions } from '../../turn/report-options.js';
import type { ParsedArgv } from '../command.js';

/** A flag as data (the shape the one flag table of the CLI will hold). */
export interface FlagDef {
  name: string;
  alias?: string;
  type: 'string' | 'number' | 'boolean' | 'count';
  choices?: readonly string[];
  default?: unknown;
  repeatable?: boolean;
  env?: string;
  configKey?: string;
  describe: string;
  group?: string;
}

/** The CI reports of a run (README "CI"), on every command that runs a turn: ask, continue, fork, resume. */
export const REPORT_FLAGS: FlagDef[] = [
  {
    name: 'summary',
    type: 'string',
    describe:
      'write the turn as GitHub step-summary markdown to FILE, e.g. "$GITHUB_STEP_SUMMARY" (works with --no-save)',
  },
  {
    name: 'junit',
    type: 'string',
    describe: 'write the turn as a JUnit XML report to FILE: one test case per gate check (works with --no-save)',
  },
  {
    name: 'html',
    type: 'string',
    describe:
      'write the session as one self-contained HTML page to FILE: verdict, charts, every round (works with --no-save)',
  },
  {
    name: 'annotate',
    type: 'boolean',
    describe:
      'GitHub workflow commands on stderr: ::error:: per wrong claim, ::warning:: per contested one, a ::notice::',
  },
];

export function withReportFlags(y: Argv): Argv {
  let out = y;
  for (const def of REPORT_FLAGS) {
    out = out.option(def.name, {
      type: def.type,
      describe: def.describe,
      ...(def.alias === undefined ? {} : { alias: def.alias }),
      ...(def.default === undefined ? {} : { default: def.default }),
      ...(def.choices === undefined ? {} : { choices: def.choices }),
    });
  }
  return out;
}

/**
 * `--summary FILE`, `--junit FILE`, `--html FILE`, `--annotate` (undefined when none is given);
 * a report file needs a name, and one file cannot hold two reports.
 */
const EXAMPLE_FILE: Record<string, string> = { summary: 'summary.md', junit: 'nsed.xml', html: 'report.html' };

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
  if (summary === undefined && junit === undefined && html === undefined && argv['annotate'] !== true) return undefined;
  const named = [
    ['--summary', summary],
    ['--junit', junit],
    ['--html', html],
  ] as const;
  for (const [i, [a, fa]] of named.entries())
    for (const [b, fb] of named.slice(i + 1))
      if (fa !== undefined && fa === fb)
        throw usageError(`${a} and ${b} name the same file`, 'give each report its own file');
  return {
    ...(summary === undefined ? {} : { summary }),
    ...(junit === undefined ? {} : { junit }),
    ...(html === undefined ? {} : { html }),
    annotate: argv['annotate'] === true,
  };
}
