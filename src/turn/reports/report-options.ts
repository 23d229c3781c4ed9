import { stat } from 'node:fs/promises';
import { usageError } from '../../errors.js';
import { checkOutsidePath } from '../../files/outside-file.js';

/** The CI reports a run writes once its turn ends (README "CI"). */
export interface ReportOptions {
  /** `--summary FILE`: GitHub step-summary markdown. */
  summary?: string;
  /** `--junit FILE`: JUnit XML, one test case per gate check. */
  junit?: string;
  /** `--html FILE`: the session as one self-contained HTML page. */
  html?: string;
  /** `--annotate`: GitHub workflow commands on stderr. */
  annotate: boolean;
  /** `--junit-name NAME`: the JUnit suite's name (default: the session title, or the batch file's name). */
  junitName?: string;
  /** `--github-output FILE`: step outputs appended to FILE (default under GitHub Actions: `$GITHUB_OUTPUT`). */
  githubOutput?: string;
  /** `--session-id-file FILE`: the session's id and a newline, for a script that continues it. */
  sessionIdFile?: string;
  /** `--findings POINTER`: where the findings are in the --schema answer (docs/ci.md "Findings on the changed lines"). */
  findings?: string;
  /** `--sarif FILE`: the findings as SARIF 2.1.0. */
  sarif?: string;
  /** `--codequality FILE`: the findings as GitLab's Code Quality report. */
  codequality?: string;
  /** `--rdjson FILE`: the findings as reviewdog's rdjsonl (docs/ci-review.md). */
  rdjson?: string;
  /** `--check-run NAME`: one GitHub check run of the verdict and the findings (docs/ci-review.md). */
  checkRun?: string;
  /** `--workspace DIR`: the checkout the findings point into (default: the current folder). */
  workspace?: string;
}

/**
 * Where the step outputs go (docs/ci.md "Step outputs"): `--github-output FILE`, else `$GITHUB_OUTPUT`
 * when the run is a GitHub Actions step (`GITHUB_ACTIONS=true`), else nowhere.
 */
export function stepOutputFile(
  r: Pick<ReportOptions, 'githubOutput'> | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (r?.githubOutput !== undefined) return r.githubOutput;
  const file = env['GITHUB_OUTPUT'];
  return env['GITHUB_ACTIONS'] === 'true' && file !== undefined && file !== '' ? file : undefined;
}

export const wantsReports = (
  r: ReportOptions | undefined,
  env: Readonly<Record<string, string | undefined>> = {},
): boolean =>
  stepOutputFile(r, env) !== undefined ||
  (r !== undefined &&
    (r.summary !== undefined ||
      r.junit !== undefined ||
      r.html !== undefined ||
      r.sessionIdFile !== undefined ||
      r.sarif !== undefined ||
      r.codequality !== undefined ||
      r.rdjson !== undefined ||
      r.checkRun !== undefined ||
      r.annotate));

/**
 * Checked before the turn is sent: a report file that could never be written (its folder is
 * missing, it names a folder, or its links loop) is a usage error while nothing has been spent
 * on a deliberation.
 */
export async function checkReportFiles(r: ReportOptions | undefined): Promise<void> {
  for (const [flag, file] of [
    ['--summary', r?.summary],
    ['--junit', r?.junit],
    ['--html', r?.html],
    ['--github-output', r?.githubOutput],
    ['--session-id-file', r?.sessionIdFile],
    ['--sarif', r?.sarif],
    ['--codequality', r?.codequality],
    ['--rdjson', r?.rdjson],
  ] as const) {
    if (file !== undefined) await checkOutsidePath(file, flag);
  }
  if (r?.workspace !== undefined) {
    const dir = await stat(r.workspace).catch(() => undefined);
    if (dir === undefined || !dir.isDirectory())
      throw usageError(`--workspace ${r.workspace} is not a folder`, 'name the checkout the findings point into');
  }
}
