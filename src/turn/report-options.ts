import { stat } from 'node:fs/promises';
import path from 'node:path';
import { usageError } from '../errors.js';

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
 * missing, or it names a folder) is a usage error while nothing has been spent on a deliberation.
 */
export async function checkReportFiles(r: ReportOptions | undefined): Promise<void> {
  for (const [flag, file] of [
    ['--summary', r?.summary],
    ['--junit', r?.junit],
    ['--html', r?.html],
  ] as const) {
    if (file === undefined) continue;
    const target = path.resolve(file);
    const dir = await stat(path.dirname(target)).catch(() => undefined);
    if (dir === undefined || !dir.isDirectory())
      throw usageError(`${flag} ${file}: the folder ${path.dirname(target)} does not exist`, 'create it first');
    const existing = await stat(target).catch(() => undefined);
    if (existing?.isDirectory() === true)
      throw usageError(`${flag} ${file} is a folder`, `name a file in it, e.g. ${path.join(file, 'nsed-report')}`);
  }
}
