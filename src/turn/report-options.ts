import { checkOutsidePath } from '../files/outside-file.js';

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
}

export const wantsReports = (r: ReportOptions | undefined): r is ReportOptions =>
  r !== undefined && (r.summary !== undefined || r.junit !== undefined || r.html !== undefined || r.annotate);

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
  ] as const) {
    if (file !== undefined) await checkOutsidePath(file, flag);
  }
}
