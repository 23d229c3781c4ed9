import type { FindingSeverity, PlacedFinding } from '../findings.js';
import { findingCheck, findingFingerprint } from './finding-identity.js';

/** GitLab's severities for the findings' (docs/ci.md "Findings on the changed lines"). */
const SEVERITY: Record<FindingSeverity, 'major' | 'minor' | 'info'> = {
  error: 'major',
  warning: 'minor',
  notice: 'info',
};

/**
 * `--codequality FILE`: GitLab's Code Quality report, a JSON array with one issue per placed
 * finding (`description`, `check_name`, `fingerprint`, `severity`, `location.path` and
 * `location.lines.begin`); the fingerprint is stable across runs (finding-identity.ts), so GitLab
 * tells a finding that stayed from one that is new.
 */
export function codeQualityReport(findings: readonly PlacedFinding[]): string {
  const issues = findings.map((f) => ({
    type: 'issue',
    description: f.title === null ? f.message : `${f.title}: ${f.message}`,
    check_name: findingCheck(f),
    fingerprint: findingFingerprint(f),
    severity: SEVERITY[f.severity],
    location: {
      path: f.path,
      lines: { begin: f.line, ...(f.endLine === null ? {} : { end: f.endLine }) },
    },
  }));
  return `${JSON.stringify(issues, null, 2)}\n`;
}
